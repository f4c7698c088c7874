package model

// dialectOf returns the registered dialect named name (register_test.go
// registers them all), DialectUnknown when none is.
func dialectOf(name string) Dialect {
	d, _ := Lookup(name)
	return d
}

// geminiEnded is the gemini package's Ended, which the core's tests cannot
// import: whether a call streamed with partialArgs got its end marker.
func geminiEnded(it *Item) (streamed, ended bool) {
	if it.paths == nil {
		return false, false
	}
	return true, it.paths.Ended
}
