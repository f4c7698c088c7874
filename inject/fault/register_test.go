package fault_test

// Registers every dialect for the package's tests, as the commands do
// (see model/dialects).
import _ "github.com/streamtap/streamtap/model/dialects"
