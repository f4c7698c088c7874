package cli

import (
	"context"
	"os"
	"os/signal"
	"syscall"
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

// notifyShutdown returns a context cancelled by the first shutdown
// signal. From then on the signals have their default action again, so
// a second ^C ends a drain the user does not want to wait for.
func notifyShutdown() (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), shutdownSignals()...)
	go func() {
		<-ctx.Done()
		stop()
	}()
	return ctx, stop
}
