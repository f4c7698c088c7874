package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/streamtap/streamtap/ingest"
)

// shutdownSignals are the signals that end streamtap the way ^C does:
// every command stops reading, finishes the files it writes (--save,
// --save-timed, --save-har, recordings) and exits; the proxy first lets
// its open sessions finish (proxy.ShutdownGrace). kill's default SIGTERM
// and the SIGHUP of a closed terminal used to end the process on the
// spot, leaving a --save-har file empty. SIGHUP is left alone when the
// process started with it ignored (nohup), so that a proxy run under
// nohup outlives its terminal as the user asked.
func shutdownSignals() []os.Signal {
	sigs := []os.Signal{os.Interrupt, syscall.SIGTERM}
	if !signal.Ignored(syscall.SIGHUP) {
		sigs = append(sigs, syscall.SIGHUP)
	}
	return sigs
}

// Past the first shutdown signal, the process ends by itself if the
// command has not: at exitGrace if it sits idle (it waits for something
// that will not come: the wedge a signal must never leave silent), and at
// the latest at exitLimit while it still works (finishing a big
// --save-har). A second signal ends it at once.
const (
	exitGrace = 1700 * time.Millisecond
	exitLimit = 10 * time.Second
)

// notifyShutdown returns a context cancelled by the first shutdown signal.
// From then on the signals have their default action again, so a second
// ^C ends a drain the user does not want to wait for; and a watch ends the
// process if the command does not (see exitGrace), saying so on stderr,
// with every goroutine's stack under STREAMTAP_DEBUG=1.
func notifyShutdown(stderr io.Writer) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, shutdownSignals()...)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			signal.Stop(sigs) // the default action again: a second signal ends the process
			cancel(fmt.Errorf("%v signal received", sig))
			exitAfter(sig, stderr)
		case <-done:
			signal.Stop(sigs)
		}
	}()
	return ctx, func() {
		close(done)
		cancel(nil)
	}
}

// signalName is sig as kill names it (SIGTERM), not as strsignal does
// ("terminated").
func signalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return sig.String()
}

// debugging says whether STREAMTAP_DEBUG asks for the reports that show
// where a command waits.
func debugging() bool {
	v := os.Getenv("STREAMTAP_DEBUG")
	return v != "" && v != "0"
}

// debugReports turns on what STREAMTAP_DEBUG=1 asks for: every hand-over
// of frames reports a wait that lasts (ingest.ReportStalls) on stderr.
func debugReports(stderr io.Writer) {
	if !debugging() {
		return
	}
	ingest.ReportStalls(func(msg string) { fmt.Fprintln(stderr, msg) })
}

// exitAfter ends the process if the command has not ended soon after the
// signal sig: once it sits idle past exitGrace, or at exitLimit. Main
// returning first ends the process and this watch with it.
func exitAfter(sig os.Signal, stderr io.Writer) {
	start := time.Now()
	time.Sleep(exitGrace)
	for time.Since(start) < exitLimit && busy(100*time.Millisecond) {
	}
	fmt.Fprintf(stderr, "streamtap: still running %s after %s: exiting without finishing (STREAMTAP_DEBUG=1 shows where it waits)\n",
		time.Since(start).Round(100*time.Millisecond), signalName(sig))
	if debugging() {
		buf := make([]byte, 8<<20)
		fmt.Fprintf(stderr, "streamtap: every goroutine:\n%s\n", buf[:runtime.Stack(buf, true)])
	}
	status := statusInterrupted
	if s, ok := sig.(syscall.Signal); ok {
		status = 128 + int(s)
	}
	os.Exit(status)
}
