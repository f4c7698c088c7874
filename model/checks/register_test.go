package checks_test

// The checks' tests read streams of every dialect, judged by every
// dialect's rules: importing the registration list here registers them
// for the package's tests (this external test package may import what
// imports checks).
import _ "github.com/streamtap/streamtap/model/dialects"
