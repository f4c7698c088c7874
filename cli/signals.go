package cli

import (
	"context"
	"errors"
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

// Past the first shutdown signal, a command has finishBy to finish its
// files: a --save-har entry that would take longer is cut where it
// stands (capture.HAR.Hurry), its comment saying what it kept. The
// process ends by itself at exitLimit if the command has not, whatever
// it is doing: waiting for something that will not come (the wedge a
// signal must never leave silent), or a write that cannot end in time.
// Every file is whole then (see docs/security.md: what the --save-har
// file keeps). A second signal ends it at once. The 2 s the project
// promises hold the command's output and its exit after finishBy.
const (
	finishBy  = 1200 * time.Millisecond
	exitLimit = 1700 * time.Millisecond
)

// signalError is the cause of a context a shutdown signal cancelled:
// which signal, and when it came (finishBy counts from then).
type signalError struct {
	sig os.Signal
	at  time.Time
}

func (e *signalError) Error() string { return fmt.Sprintf("%v signal received", e.sig) }

// signalled returns the signal that cancelled ctx, if one did.
func signalled(ctx context.Context) (*signalError, bool) {
	var se *signalError
	ok := errors.As(context.Cause(ctx), &se)
	return se, ok
}

// onSignal calls f, on a goroutine of its own, once a shutdown signal
// cancels ctx (not when ctx ends otherwise: a q in the inspector still
// finishes every file whole). The returned function stops the watch.
func onSignal(ctx context.Context, f func(*signalError)) (stop func() bool) {
	return context.AfterFunc(ctx, func() {
		if se, ok := signalled(ctx); ok {
			f(se)
		}
	})
}

// notifyShutdown returns a context cancelled by the first shutdown signal,
// its cause a *signalError. From then on the signals have their default
// action again, so a second ^C ends a drain the user does not want to
// wait for; and a watch ends the process if the command does not (see
// exitLimit), saying so on stderr, with every goroutine's stack under
// STREAMTAP_DEBUG=1.
func notifyShutdown(stderr io.Writer) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, shutdownSignals()...)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			at := time.Now()
			signal.Stop(sigs) // the default action again: a second signal ends the process
			cancel(&signalError{sig: sig, at: at})
			exitAfter(sig, at, stderr)
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

// exitAfter ends the process if the command has not ended exitLimit
// after the signal sig came (at). Main returning first ends the process
// and this watch with it.
func exitAfter(sig os.Signal, start time.Time, stderr io.Writer) {
	time.Sleep(time.Until(start.Add(exitLimit)))
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
