package theme

import (
	"image/color"
	"testing"
)

// hue classifies a colour by its strongest channel: 'r', 'g' or 'b'.
func hue(c color.Color) byte {
	r, g, b, _ := c.RGBA()
	switch {
	case b > r && b > g:
		return 'b'
	case g > r && g > b:
		return 'g'
	case r > g && r > b:
		return 'r'
	}
	return '?'
}

// TestJSONKeysBlueStringsGreen: JSON keys are blue and strings green, in
// the light and the dark theme, as jq and fx colour them (they were two
// blues, told apart only by how pale they were); an argument delta's
// timeline row keeps its own colour, not the green of a done row.
func TestJSONKeysBlueStringsGreen(t *testing.T) {
	for _, dark := range []bool{false, true} {
		s := New(dark, false)
		key, str := s.JSON[TokKey].GetForeground(), s.JSON[TokString].GetForeground()
		if hue(key) != 'b' || hue(str) != 'g' {
			t.Errorf("dark %v: keys %v (%c), strings %v (%c); want blue keys, green strings", dark, key, hue(key), str, hue(str))
		}
		p := newPalette(dark)
		if delta := s.Timeline.Kind[kindIndex(t, "args-delta")].GetForeground(); delta == p.ok || hue(delta) == 'g' {
			t.Errorf("dark %v: an argument delta's row is %v, the green of done rows", dark, delta)
		}
	}
}

// kindIndex is the index of the kind named name in the timeline's styles.
func kindIndex(t *testing.T, name string) int {
	for i, k := range kindList {
		if k.String() == name {
			return i
		}
	}
	t.Fatalf("no kind %q", name)
	return 0
}
