package jsonscan

// hashPass is pass that also fingerprints the document (see Fingerprint):
// each value's walk returns its fingerprint, objects sum their members',
// arrays fold their elements'. It is pass's code again rather than pass
// with a switch: asking at every value whether to hash cost every scan
// that does not (all but diff's) 4% of what modelling an event costs.
type hashPass struct {
	d     []byte
	x     *Index
	names *Names
	depth int
	// skip names the members the fingerprint leaves out.
	skip *KeySet
}

// run validates and indexes p.d, and reports whether it is an object,
// whether it is valid, and its fingerprint.
func (p *hashPass) run() (isObject, ok bool, h uint64) {
	d := p.d
	i := skipWS(d, 0)
	if i < len(d) && d[i] == '{' {
		isObject = true
		i, h = p.object(i, p.names)
	} else {
		i, h = p.value(i)
	}
	if i < 0 {
		return isObject, false, 0
	}
	return isObject, skipWS(d, i) == len(d), h
}

// value returns the index just past the value at d[i], or -1 when there
// is no valid value there, and the value's fingerprint.
func (p *hashPass) value(i int) (int, uint64) {
	d := p.d
	if i >= len(d) {
		return -1, 0
	}
	e := -1
	switch d[i] {
	case '"':
		e = stringEnd(d, i+1)
	case '{':
		return p.object(i, nil)
	case '[':
		return p.array(i)
	case 't':
		if len(d)-i >= 4 && string(d[i:i+4]) == "true" {
			e = i + 4
		}
	case 'f':
		if len(d)-i >= 5 && string(d[i:i+5]) == "false" {
			e = i + 5
		}
	case 'n':
		if len(d)-i >= 4 && string(d[i:i+4]) == "null" {
			e = i + 4
		}
	default:
		e = numberEnd(d, i)
	}
	if e < 0 {
		return -1, 0
	}
	return e, hashBytes(d[i:e])
}

// object returns the index just past the object opening at d[i], or -1,
// and its fingerprint. With names (the top level), it records
// where the named members lie.
func (p *hashPass) object(i int, names *Names) (int, uint64) {
	if p.depth++; p.depth > MaxDepth {
		return -1, 0
	}
	d, x := p.d, p.x
	start := i
	slot, prev := x.open(i), -1
	h := uint64(objectSeed)
	i++
	if i < len(d) && d[i] <= ' ' {
		i = skipWS(d, i)
	}
	if i < len(d) && d[i] == '}' {
		i++
		x.close(slot, i)
		return i, p.closed(start, i, h)
	}
	for {
		if i >= len(d) || d[i] != '"' {
			return -1, 0
		}
		ks := i + 1
		if i = stringEnd(d, ks); i < 0 {
			return -1, 0
		}
		ke := i - 1
		if i < len(d) && d[i] <= ' ' {
			i = skipWS(d, i)
		}
		if i >= len(d) || d[i] != ':' {
			return -1, 0
		}
		i++
		if i < len(d) && d[i] <= ' ' {
			i = skipWS(d, i)
		}
		vs := i
		var hv uint64
		i, hv = p.value(i)
		if i < 0 {
			return -1, 0
		}
		if slot >= 0 {
			prev = x.member(slot, prev, ks, ke, vs, i)
		}
		if names != nil && ke > ks {
			if k := int(names.table[hashName(d[ks:ke], names.seed, names.whole)]) - 1; k >= 0 && names.names[k] == string(d[ks:ke]) {
				x.addFound(k, vs, i)
			}
		}
		if !p.skip.Has(d[ks:ke]) {
			h += memberHash(d[ks:ke], hv)
		}
		if i < len(d) && d[i] <= ' ' {
			i = skipWS(d, i)
		}
		if i >= len(d) {
			return -1, 0
		}
		switch d[i] {
		case ',':
			i++
			if i < len(d) && d[i] <= ' ' {
				i = skipWS(d, i)
			}
		case '}':
			i++
			x.close(slot, i)
			return i, p.closed(start, i, h)
		default:
			return -1, 0
		}
	}
}

// closed ends the container d[start:end] of fingerprint h so far: it
// returns its fingerprint, its bytes' when it lies deeper than a
// fingerprint reads.
func (p *hashPass) closed(start, end int, h uint64) uint64 {
	p.depth--
	if p.depth >= maxHashDepth {
		return hashBytes(p.d[start:end])
	}
	return h
}

// array returns the index just past the array opening at d[i], or -1,
// and its fingerprint.
func (p *hashPass) array(i int) (int, uint64) {
	if p.depth++; p.depth > MaxDepth {
		return -1, 0
	}
	d, x := p.d, p.x
	start := i
	slot, prev := x.open(i), -1
	h := uint64(arraySeed)
	i++
	if i < len(d) && d[i] <= ' ' {
		i = skipWS(d, i)
	}
	if i < len(d) && d[i] == ']' {
		i++
		x.close(slot, i)
		return i, p.closed(start, i, h)
	}
	for {
		vs := i
		var hv uint64
		if i, hv = p.value(i); i < 0 {
			return -1, 0
		}
		if slot >= 0 {
			prev = x.member(slot, prev, -1, -1, vs, i)
		}
		h = elementHash(h, hv)
		if i < len(d) && d[i] <= ' ' {
			i = skipWS(d, i)
		}
		if i >= len(d) {
			return -1, 0
		}
		switch d[i] {
		case ',':
			i++
			if i < len(d) && d[i] <= ' ' {
				i = skipWS(d, i)
			}
		case ']':
			i++
			x.close(slot, i)
			return i, p.closed(start, i, h)
		default:
			return -1, 0
		}
	}
}
