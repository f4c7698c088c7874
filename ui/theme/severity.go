package ui

import "github.com/streamtap/streamtap/model/checks"

// severity ranks findings, so that a row cited by several is marked by the
// worst of them.
type severity uint8

const (
	sevNone severity = iota
	sevInfo
	sevWarning
	sevError
	numSeverities
)

// severityOf ranks a finding's severity for the marks.
func severityOf(s checks.Severity) severity {
	switch s {
	case checks.Error:
		return sevError
	case checks.Warning:
		return sevWarning
	}
	return sevInfo
}
