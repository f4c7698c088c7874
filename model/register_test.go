package model_test

// The core's tests read streams of every dialect: importing the
// registration list here registers them for the package's tests (this
// external test package may import what imports model).
import _ "github.com/streamtap/streamtap/model/dialects"
