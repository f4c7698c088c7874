package bedrock

import (
	"bytes"
	"testing"

	"github.com/streamtap/streamtap/model"
)

// sameReportJSON holds Session.WriteReportJSON, which streams, to the
// report it stands for (as the core's test of the same name).
func sameReportJSON(t *testing.T, s *model.Session, rep model.CallsReport) {
	t.Helper()
	var want, got bytes.Buffer
	if err := rep.WriteJSON(&want); err != nil {
		t.Fatal(err)
	}
	if err := s.WriteReportJSON(&got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("WriteReportJSON wrote\n%s\nReport().WriteJSON wrote\n%s", got.Bytes(), want.Bytes())
	}
}
