package main

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"
)

// check loads the file once per profile selection and returns every problem found, plus the
// project as loaded with no profile (for -print).
func check(file, pinsPath string) ([]string, *types.Project, error) {
	pins, err := readPins(pinsPath)
	if err != nil {
		return nil, nil, err
	}
	base, err := load(file, nil)
	if err != nil {
		// Loading is the first thing `docker compose up` does: nothing else matters if it fails.
		return []string{fmt.Sprintf("loading %s with an empty environment: %v", file, err)}, nil, nil
	}
	var problems []string
	used := map[string]bool{}
	for _, profiles := range profileSelections(base) {
		project := base
		if len(profiles) > 0 {
			if project, err = load(file, profiles); err != nil {
				problems = append(problems, fmt.Sprintf("loading %s with --profile %s: %v", file, strings.Join(profiles, ","), err))
				continue
			}
		}
		problems = append(problems, checkProject(project, pins, used)...)
	}
	for name := range pins {
		if !used[name] {
			problems = append(problems, fmt.Sprintf("%s pins %s, which nothing uses: remove the pin", pinsPath, name))
		}
	}
	return dedupe(problems), base, nil
}

// load does what `docker compose --profile … config` does with no variables set: interpolation,
// schema validation, consistency checks (depends_on targets, profiles), paths resolved.
func load(file string, profiles []string) (*types.Project, error) {
	absolute, err := filepath.Abs(file)
	if err != nil {
		return nil, err
	}
	options, err := cli.NewProjectOptions([]string{absolute},
		cli.WithWorkingDirectory(filepath.Dir(absolute)),
		cli.WithEnv(nil),
		cli.WithDotEnv,
		cli.WithProfiles(profiles),
		cli.WithResolvedPaths(true),
	)
	if err != nil {
		return nil, err
	}
	return options.LoadProject(context.Background())
}

// profileSelections: no profile, each profile alone, and all of them.
func profileSelections(project *types.Project) [][]string {
	seen := map[string]bool{}
	for _, service := range project.AllServices() {
		for _, profile := range service.Profiles {
			seen[profile] = true
		}
	}
	names := make([]string, 0, len(seen))
	for name := range seen {
		names = append(names, name)
	}
	sort.Strings(names)
	selections := [][]string{nil}
	for _, name := range names {
		selections = append(selections, []string{name})
	}
	if len(names) > 1 {
		selections = append(selections, []string{"*"})
	}
	return selections
}

func checkProject(project *types.Project, pins map[string]pin, used map[string]bool) []string {
	var problems []string
	for _, name := range project.ServiceNames() {
		service := project.Services[name]
		problems = append(problems, checkDependencies(project, service)...)
		if service.Build != nil {
			if service.Image != "" && service.PullPolicy != types.PullPolicyBuild {
				problems = append(problems, fmt.Sprintf("service %s: builds %s but has pull_policy %q: compose would first try to pull that name from a registry; set pull_policy: build", name, service.Image, service.PullPolicy))
			}
			froms, err := dockerfileImages(service.Build)
			if err != nil {
				problems = append(problems, fmt.Sprintf("service %s: %v", name, err))
			}
			for _, from := range froms {
				problems = append(problems, checkImage(fmt.Sprintf("service %s: %s FROM", name, from.file), from.image, pins, used)...)
			}
			continue
		}
		problems = append(problems, checkImage(fmt.Sprintf("service %s: image", name), service.Image, pins, used)...)
	}
	return problems
}

// checkDependencies: conditions that can never be met make `docker compose up` wait or fail.
func checkDependencies(project *types.Project, service types.ServiceConfig) []string {
	var problems []string
	for target, dependency := range service.DependsOn {
		other, ok := project.Services[target]
		if !ok {
			continue // compose-go's consistency check already refused unknown or disabled targets
		}
		switch dependency.Condition {
		case types.ServiceConditionHealthy:
			if other.HealthCheck == nil || other.HealthCheck.Disable || len(other.HealthCheck.Test) == 0 {
				problems = append(problems, fmt.Sprintf("service %s waits for %s to be healthy, but %s has no healthcheck", service.Name, target, target))
			}
		case types.ServiceConditionCompletedSuccessfully:
			if other.Restart == types.RestartPolicyAlways || other.Restart == types.RestartPolicyUnlessStopped {
				problems = append(problems, fmt.Sprintf("service %s waits for %s to complete, but %s restarts %s", service.Name, target, target, other.Restart))
			}
		}
	}
	return problems
}

func dedupe(lines []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, line := range lines {
		if !seen[line] {
			seen[line] = true
			out = append(out, line)
		}
	}
	return out
}
