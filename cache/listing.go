package cache

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpfs/mcpfs/discovery/catalog"
)

// A tool listing is stored in a compact binary form: the raw JSON of each
// tool is kept as it came, length-prefixed, so that loading a listing is
// one copy of the value instead of a JSON scan of every schema (10,000
// tools are about 13 MB of JSON). Listings stored by earlier versions as
// JSON (storedTools, format 1) are still read.
//
//	magic        "\x00mct" and the format byte (2)
//	listedAt     uvarint length + time.MarshalBinary
//	serverName, serverTitle, serverVersion, protocolVersion, instructions
//	             uvarint length + bytes each
//	truncated    one byte, 0 or 1
//	tools        uvarint count, then per tool: name, raw (uvarint length + bytes)

// listingMagic starts a binary listing; neither JSON nor gzip starts so.
const listingMagic = "\x00mct"

// listingFormat is the version of the binary listing; another version is
// a miss.
const listingFormat = 2

var errBadListing = errors.New("malformed cached listing")

// encodeListing returns the binary form of t.
func encodeListing(t catalog.CachedTools) ([]byte, error) {
	when, err := t.ListedAt.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("encode the listing time: %w", err)
	}
	n := len(listingMagic) + 1 + 1 + 6*binary.MaxVarintLen64 + len(when) +
		len(t.ServerName) + len(t.ServerTitle) + len(t.ServerVersion) + len(t.ProtocolVersion) + len(t.Instructions)
	for _, tool := range t.Tools {
		n += 2*binary.MaxVarintLen64 + len(tool.Name) + len(tool.Raw)
	}
	b := make([]byte, 0, n)
	b = append(b, listingMagic...)
	b = append(b, listingFormat)
	b = appendBytes(b, when)
	for _, s := range []string{t.ServerName, t.ServerTitle, t.ServerVersion, t.ProtocolVersion, t.Instructions} {
		b = appendBytes(b, []byte(s))
	}
	if t.ToolsTruncated {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(t.Tools)))
	for _, tool := range t.Tools {
		b = appendBytes(b, []byte(tool.Name))
		b = appendBytes(b, tool.Raw)
	}
	return b, nil
}

func appendBytes(b, p []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(p)))
	return append(b, p...)
}

// decodeListing decodes a binary listing. The tools' raw JSON points into
// b, which the caller must not change afterwards. ok is false for a
// listing of another format.
func decodeListing(b []byte) (t catalog.CachedTools, ok bool, err error) {
	if len(b) < len(listingMagic)+1 || string(b[:len(listingMagic)]) != listingMagic {
		return t, false, errBadListing
	}
	if b[len(listingMagic)] != listingFormat {
		return t, false, nil
	}
	d := listingDecoder{b: b[len(listingMagic)+1:]}
	if err := t.ListedAt.UnmarshalBinary(d.bytes()); err != nil && d.err == nil {
		d.err = fmt.Errorf("%w: listing time: %v", errBadListing, err)
	}
	t.ServerName = string(d.bytes())
	t.ServerTitle = string(d.bytes())
	t.ServerVersion = string(d.bytes())
	t.ProtocolVersion = string(d.bytes())
	t.Instructions = string(d.bytes())
	t.ToolsTruncated = d.byte() == 1
	count := d.uvarint()
	// Each tool takes at least two bytes: a count past that is corrupt.
	if d.err == nil && count > uint64(len(d.b))/2 {
		d.err = fmt.Errorf("%w: %d tools in %d bytes", errBadListing, count, len(d.b))
	}
	if d.err == nil {
		t.Tools = make([]catalog.Tool, count)
		for i := range t.Tools {
			t.Tools[i].Name = string(d.bytes())
			t.Tools[i].Raw = json.RawMessage(d.bytes())
		}
	}
	if d.err == nil && len(d.b) != 0 {
		d.err = fmt.Errorf("%w: %d bytes past the end", errBadListing, len(d.b))
	}
	if d.err != nil {
		return catalog.CachedTools{}, false, d.err
	}
	return t, true, nil
}

// listingDecoder reads the fields of a binary listing; the first error
// sticks, and reads after it return zero values.
type listingDecoder struct {
	b   []byte
	err error
}

func (d *listingDecoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = fmt.Errorf("%w: bad length", errBadListing)
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *listingDecoder) bytes() []byte {
	n := d.uvarint()
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.b)) {
		d.err = fmt.Errorf("%w: a field of %d bytes in %d", errBadListing, n, len(d.b))
		return nil
	}
	p := d.b[:n:n]
	d.b = d.b[n:]
	return p
}

func (d *listingDecoder) byte() byte {
	if d.err != nil {
		return 0
	}
	if len(d.b) == 0 {
		d.err = fmt.Errorf("%w: truncated", errBadListing)
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}
