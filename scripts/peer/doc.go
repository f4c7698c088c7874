//go:build !goexperiment.jsonv2

// Command peer is the yardstick scripts/bench.sh measures streamtap calls
// --json against (see main.go). It needs encoding/json/v2, which Go 1.26
// has behind an experiment: build it with GOEXPERIMENT=jsonv2.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "peer: build with GOEXPERIMENT=jsonv2 (encoding/json/v2)")
	os.Exit(2)
}
