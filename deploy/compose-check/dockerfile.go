package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/compose-spec/compose-go/v2/types"
)

type fromLine struct {
	file  string
	image string
}

var variable = regexp.MustCompile(`\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?`)

// dockerfileImages lists the images a build pulls: each FROM that is not an earlier stage or
// `scratch`, with ARG defaults (and the service's build args) substituted as docker build does.
func dockerfileImages(build *types.BuildConfig) ([]fromLine, error) {
	file := build.Dockerfile
	if file == "" {
		file = "Dockerfile"
	}
	if !filepath.IsAbs(file) {
		file = filepath.Join(build.Context, file)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("reading the Dockerfile: %w", err)
	}
	args := map[string]string{}
	for key, value := range build.Args {
		if value != nil {
			args[key] = *value
		}
	}
	stages := map[string]bool{}
	var froms []fromLine
	for _, instruction := range instructions(string(data)) {
		fields := strings.Fields(instruction)
		if len(fields) < 2 {
			continue
		}
		switch strings.ToUpper(fields[0]) {
		case "ARG":
			if key, value, ok := strings.Cut(fields[1], "="); ok {
				if _, given := args[key]; !given {
					args[key] = strings.Trim(value, `"'`)
				}
			}
		case "FROM":
			words := withoutFlags(fields[1:])
			if len(words) == 0 {
				continue
			}
			image := variable.ReplaceAllStringFunc(words[0], func(match string) string {
				return args[variable.FindStringSubmatch(match)[1]]
			})
			if image != "scratch" && !stages[strings.ToLower(image)] {
				froms = append(froms, fromLine{file: filepath.Base(file), image: image})
			}
			if len(words) >= 3 && strings.EqualFold(words[1], "AS") {
				stages[strings.ToLower(words[2])] = true
			}
		}
	}
	return froms, nil
}

// instructions joins continued lines and drops comments.
func instructions(text string) []string {
	var out []string
	var current strings.Builder
	scanner := bufio.NewScanner(strings.NewReader(text))
	for scanner.Scan() {
		line := strings.TrimSpace(scanner.Text())
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		if strings.HasSuffix(line, "\\") {
			current.WriteString(strings.TrimSuffix(line, "\\") + " ")
			continue
		}
		current.WriteString(line)
		out = append(out, current.String())
		current.Reset()
	}
	return out
}

func withoutFlags(words []string) []string {
	for len(words) > 0 && strings.HasPrefix(words[0], "--") {
		words = words[1:]
	}
	return words
}
