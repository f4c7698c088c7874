package theme

import "github.com/streamtap/streamtap/model/checks"

// Severity ranks findings, so that a row cited by several is marked by the
// worst of them.
type Severity uint8

const (
	SevNone Severity = iota
	SevInfo
	SevWarning
	SevError
	NumSeverities
)

// SeverityOf ranks a finding's severity for the marks.
func SeverityOf(s checks.Severity) Severity {
	switch s {
	case checks.Error:
		return SevError
	case checks.Warning:
		return SevWarning
	}
	return SevInfo
}
