package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"kafkasim/model"
	"kafkasim/scenarios"
)

func init() {
	commands["config"] = command{summary: "list every -set setting: default, unit, what it does, scenarios that override it", run: runConfig}
}

// configWidth is the column the text listing wraps at, so that it reads
// in a terminal of 100 columns.
const configWidth = 98

// runConfig is `kafkasim config [-json] [NAME...]`: every setting (or the
// ones named), with Kafka's name, Kafka's default and the value the
// scenarios start from, how a value is written, what it does and the
// catalog's scenarios that run it otherwise. An unknown name is bad input
// (exit 2) and gets the nearest names.
func runConfig(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("kafkasim config", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print a JSON array, one object per setting, for tools")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: kafkasim config [-json] [NAME...]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitPass
		}
		return exitBadInput
	}
	for _, name := range fs.Args() {
		if err := model.CheckSettingName(name); err != nil {
			fmt.Fprintf(stderr, "kafkasim config: %v\n", err)
			return exitBadInput
		}
	}
	settings := scenarios.Settings()
	if fs.NArg() > 0 {
		var picked []scenarios.Setting
		for _, name := range fs.Args() {
			for _, s := range settings {
				if s.Name == name {
					picked = append(picked, s)
				}
			}
		}
		settings = picked
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(settings); err != nil {
			fmt.Fprintf(stderr, "kafkasim config: %v\n", err)
			return exitBadInput
		}
		return exitPass
	}
	var b strings.Builder
	for i, s := range settings {
		if i > 0 {
			b.WriteString("\n")
		}
		writeSetting(&b, s)
	}
	if _, err := io.WriteString(stdout, b.String()); err != nil {
		return exitBadInput
	}
	return exitPass
}

// writeSetting writes one setting as an indented block.
func writeSetting(b *strings.Builder, s scenarios.Setting) {
	head := s.Name + "  (" + s.Group
	if s.KafkasimOnly {
		head += ", kafkasim's own: not a Kafka setting"
	}
	fmt.Fprintf(b, "%s)\n", head)
	def := "default " + s.Default
	if s.Base != s.Default {
		def += ", the scenarios start from " + s.Base
	}
	wrap(b, def+"; value: "+s.Unit)
	wrap(b, s.Description)
	if s.Releases != "" {
		wrap(b, "by release: "+s.Releases)
	}
	if len(s.OverriddenBy) > 0 {
		parts := make([]string, len(s.OverriddenBy))
		for i, o := range s.OverriddenBy {
			parts[i] = o.Scenario + "=" + o.Value
		}
		wrap(b, "overridden by: "+strings.Join(parts, ", "))
	}
}

// wrap writes text indented by two spaces, broken between words so that
// no line passes configWidth (a word longer than that stands alone).
func wrap(b *strings.Builder, text string) {
	line := "  "
	for _, w := range strings.Fields(text) {
		if len(line) > 2 && len(line)+1+len(w) > configWidth {
			b.WriteString(line + "\n")
			line = "  "
		}
		if len(line) > 2 {
			line += " "
		}
		line += w
	}
	b.WriteString(line + "\n")
}
