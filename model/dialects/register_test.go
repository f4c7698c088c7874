package dialects_test

// Importing the package registers every dialect for its tests.
import _ "github.com/streamtap/streamtap/model/dialects"
