package bedrock_test

// The package's tests read Bedrock streams that carry Anthropic events, so
// they need every dialect registered: importing the registration list here
// does it for the package's tests (an external test package may import
// what imports the package).
import _ "github.com/streamtap/streamtap/model/dialects"
