// Command profile runs one streamtap command line in process under the
// runtime's profilers, so that what a command spends its CPU and its
// allocations on can be read with `go tool pprof` (the binary itself
// carries no profiling flags):
//
//	go run ./scripts/profile -cpu cpu.out -mem mem.out calls --json FILE
//	go tool pprof -top cpu.out
//
// -mem writes the allocation profile (every allocation sampled: -memrate
// sets the rate, 1 records each one) at the end of the command, so pprof's
// -sample_index=alloc_space and alloc_objects show what the command
// allocated, whatever it still held. -gomaxprocs sets the cores it may use.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"

	"github.com/streamtap/streamtap/cli"
)

func main() {
	cpu := flag.String("cpu", "", "write a CPU profile to `file`")
	mem := flag.String("mem", "", "write an allocation profile to `file`")
	rate := flag.Int("memrate", 4096, "sample an allocation every `bytes` on average (1: each one)")
	procs := flag.Int("gomaxprocs", 0, "the cores the command may use (0: all)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: profile [-cpu file] [-mem file] [-memrate bytes] [-gomaxprocs n] STREAMTAP ARGS...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	if *procs > 0 {
		runtime.GOMAXPROCS(*procs)
	}
	if *mem != "" {
		// Sampling allocations this often costs the command CPU (a tenth
		// of calls' on Anthropic events, in runtime.mProf_Malloc): a CPU
		// profile alone leaves the runtime's default, which costs nothing
		// to speak of.
		runtime.MemProfileRate = *rate
	}
	if *cpu != "" {
		f, err := os.Create(*cpu)
		if err != nil {
			fmt.Fprintln(os.Stderr, "profile:", err)
			os.Exit(2)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "profile:", err)
			os.Exit(2)
		}
	}
	status := cli.Main(flag.Args())
	if *cpu != "" {
		pprof.StopCPUProfile()
	}
	if *mem != "" {
		if err := writeHeap(*mem); err != nil {
			fmt.Fprintln(os.Stderr, "profile:", err)
			os.Exit(2)
		}
	}
	os.Exit(status)
}

func writeHeap(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	// The profile is as of the last collection: without one here, what
	// was allocated since the last one the command happened to run would
	// be missing (all but the first 66 of 150 MB framed through a proxy).
	runtime.GC()
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
