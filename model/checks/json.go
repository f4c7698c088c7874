package checks

import "io"

// WriteJSON writes the report as one JSON document (see Report.MarshalJSON)
// followed by a newline.
func WriteJSON(w io.Writer, r Report) error {
	b, err := r.MarshalJSON()
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
