package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/distribution/reference"
)

// pin is one entry of deploy/images.json: the tag to use and where it was seen published.
type pin struct {
	Tag    string `json:"tag"`
	Source string `json:"source"`
}

func readPins(path string) (map[string]pin, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var file struct {
		Images map[string]pin `json:"images"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for name, entry := range file.Images {
		if entry.Tag == "" || entry.Tag == "latest" || entry.Source == "" {
			return nil, fmt.Errorf("%s: images.%s needs a tag other than latest and the source that shows it is published", path, name)
		}
	}
	return file.Images, nil
}

// checkImage refuses untagged, `latest` and unpinned references, and tags other than the pinned one.
func checkImage(where, image string, pins map[string]pin, used map[string]bool) []string {
	named, err := reference.ParseNormalizedNamed(image)
	if err != nil {
		return []string{fmt.Sprintf("%s %q is not an image reference: %v", where, image, err)}
	}
	name := reference.FamiliarName(named)
	used[name] = true
	tagged, ok := named.(reference.Tagged)
	if !ok {
		return []string{fmt.Sprintf("%s %s has no tag: pin one (deploy/images.json)", where, image)}
	}
	if tagged.Tag() == "latest" {
		return []string{fmt.Sprintf("%s %s uses latest: pin a tag (deploy/images.json)", where, image)}
	}
	entry, ok := pins[name]
	if !ok {
		return []string{fmt.Sprintf("%s %s is not pinned: add %s to deploy/images.json with the source that shows the tag exists", where, image, name)}
	}
	if entry.Tag != tagged.Tag() {
		return []string{fmt.Sprintf("%s %s: deploy/images.json pins %s:%s", where, image, name, entry.Tag)}
	}
	return nil
}
