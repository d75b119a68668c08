// compose-check loads docker-compose.yml the way `docker compose` does (compose-go, the library
// docker compose is built on) and checks what the file alone cannot show: that it loads with an
// empty environment under every profile, that depends_on conditions can be met, and that every
// image it pulls (including each Dockerfile's FROM lines) is pinned to a tag in deploy/images.json.
// There is no Docker engine where this project is built, so this is the check CI can make.
//
//	go run ./deploy/compose-check -file docker-compose.yml -pins deploy/images.json
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	file := flag.String("file", "docker-compose.yml", "the compose file")
	pinsPath := flag.String("pins", "deploy/images.json", "image pins: image name -> tag and where that tag was seen")
	printJSON := flag.Bool("print", false, "print the loaded project (no profile, empty environment) as JSON on stdout")
	flag.Parse()

	problems, loaded, err := check(*file, *pinsPath)
	if err != nil {
		fmt.Fprintf(os.Stderr, "compose-check: %v\n", err)
		os.Exit(2)
	}
	for _, problem := range problems {
		fmt.Fprintf(os.Stderr, "compose-check: %s\n", problem)
	}
	if *printJSON && loaded != nil {
		out, err := json.MarshalIndent(loaded, "", "  ")
		if err != nil {
			fmt.Fprintf(os.Stderr, "compose-check: %v\n", err)
			os.Exit(2)
		}
		fmt.Println(string(out))
	}
	if len(problems) > 0 {
		fmt.Fprintf(os.Stderr, "compose-check: %s: %d problem(s)\n", filepath.Base(*file), len(problems))
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "compose-check: %s loads under every profile and pulls only pinned images\n", filepath.Base(*file))
}
