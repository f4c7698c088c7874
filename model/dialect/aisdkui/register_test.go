package aisdkui_test

// The tests read streams of every dialect: importing the registration
// list registers them.
import _ "github.com/streamtap/streamtap/model/dialects"
