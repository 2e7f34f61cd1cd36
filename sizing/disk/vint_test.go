package disk

import (
	"bytes"
	"testing"
)

func TestAppendVInt(t *testing.T) {
	for _, c := range []struct {
		v    uint64
		want []byte
	}{
		{0, []byte{0}},
		{127, []byte{0x7F}},
		{128, []byte{0x80, 0x80}},
		{300, []byte{0x81, 0x2C}},
		{1<<14 - 1, []byte{0xBF, 0xFF}},
		{1 << 14, []byte{0xC0, 0x40, 0x00}},
		{1<<56 - 1, []byte{0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}},
		{1 << 63, []byte{0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0}},
	} {
		got := appendVInt(nil, c.v)
		if !bytes.Equal(got, c.want) {
			t.Errorf("appendVInt(%d) = % x, want % x", c.v, got, c.want)
		}
		if len(got) != vintSize(c.v) {
			t.Errorf("vintSize(%d) = %d, wrote %d bytes", c.v, vintSize(c.v), len(got))
		}
	}
}
