package model

import "testing"

// TestMemberLookup: every declared member is found by its name, as bytes
// (the scan) and as a string (Field), and a name declared nowhere, or one
// agreeing with a declared name on the bytes the hash reads, is not.
func TestMemberLookup(t *testing.T) {
	for i := range memberNames.Len() {
		name := memberNames.Name(i)
		sl, ok := lookupMember(name)
		if !ok || sl.m != Member(i) || sl.name != name {
			t.Errorf("lookupMember(%q) = %+v, %v; want member %d", name, sl, ok, i)
		}
		var ms members
		ms.collect([]byte(name), []byte("1"))
		if string(ms.vals[i]) != "1" {
			t.Errorf("collect(%q) did not record member %d", name, i)
		}
		if name != "" {
			twin := []byte(name)
			twin[len(twin)/2] ^= 0x20
			if _, ok := lookupMember(string(twin)); ok && string(twin) != name {
				if _, declared := declaredName(string(twin)); !declared {
					t.Errorf("lookupMember(%q) found a member; it is declared nowhere", twin)
				}
			}
		}
	}
	for _, name := range []string{"x", "not-a-member", "typ", "types"} {
		if _, ok := lookupMember(name); ok {
			t.Errorf("lookupMember(%q) found a member; it is declared nowhere", name)
		}
	}
	if m := MemberOf("type"); m != mType {
		t.Errorf("MemberOf(type) again = %d; want the same member %d", m, mType)
	}
}

func declaredName(name string) (int, bool) {
	for i := range memberNames.Len() {
		if memberNames.Name(i) == name {
			return i, true
		}
	}
	return 0, false
}
