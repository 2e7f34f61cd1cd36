package migrations

import (
	"bytes"
	"context"
	"fmt"
	"hash/crc32"
	"sort"
	"strings"
)

// flywayApplied reads Flyway's history: the versions its successful runs applied, each
// file unchanged since (by Flyway's own checksum), and every version up to a baseline.
func (m *Migrator) flywayApplied(ctx context.Context, table string) ([]int64, error) {
	iter := m.st.q(ctx, `SELECT installed_rank, version, type, script, checksum, success FROM `+table).Iter()
	var (
		rank     int
		version  string
		typ      string
		script   string
		checksum *int32
		success  bool
		applied  = map[int64]bool{}
		problems []string
		rows     int
	)
	for iter.Scan(&rank, &version, &typ, &script, &checksum, &success) {
		rows++
		upper := strings.ToUpper(typ)
		switch {
		case upper == "SCHEMA" || version == "" && success:
			continue // the schema marker, or a repeatable migration: no version to adopt
		case strings.HasPrefix(upper, "UNDO") || upper == "DELETE":
			problems = append(problems, fmt.Sprintf("rank %d is a %s of version %s: adopt cannot tell what is applied after Flyway undid or deleted a version", rank, typ, version))
			continue
		case !success:
			problems = append(problems, fmt.Sprintf("Flyway's run of %s (version %s) failed (success = false): finish or undo its statements by hand, run `flyway repair` to remove the failed row, and adopt again", script, version))
			continue
		}
		want, err := parseDotted(version, ".")
		if err != nil {
			problems = append(problems, fmt.Sprintf("rank %d: version %q: %v", rank, version, err))
			continue
		}
		if upper == "BASELINE" {
			for _, mg := range m.migs {
				if p, err := labelParts(mg); err == nil && p.compare(want) <= 0 {
					applied[mg.Version] = true
				}
			}
			continue
		}
		mg := m.flywayFile(want)
		switch {
		case mg == nil:
			problems = append(problems, fmt.Sprintf("Flyway applied version %s (%s), which no file in the folder has", version, script))
		case checksum != nil && *checksum != FlywayChecksum(mg.Source):
			problems = append(problems, fmt.Sprintf("%s changed since Flyway applied it (checksum %d recorded, %d now)", mg.File, *checksum, FlywayChecksum(mg.Source)))
		default:
			applied[mg.Version] = true
		}
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("read %s: %w", table, err)
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return nil, fmt.Errorf("%w from %s: %s", ErrNotAdoptable, table, strings.Join(problems, "; "))
	}
	if len(applied) == 0 {
		return nil, fmt.Errorf("%w: %s holds %d rows and no applied version: Flyway applied nothing here; run Migrator.Up", ErrNotAdoptable, table, rows)
	}
	out := make([]int64, 0, len(applied))
	for v := range applied {
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out, nil
}

// flywayFile is the file with version v, 1.0 and 1 being one version as Flyway reads them.
func (m *Migrator) flywayFile(v dotted) *Migration {
	for _, mg := range m.migs {
		if p, err := labelParts(mg); err == nil && p.compare(v) == 0 {
			return mg
		}
	}
	return nil
}

// labelParts is a migration's version as numbers: its label's (1.46) or its number.
func labelParts(mg *Migration) (dotted, error) {
	return parseDotted(mg.VersionLabel(), "._")
}

// FlywayChecksum is the checksum Flyway records for a file: the CRC-32 of its lines read
// as Java's BufferedReader reads them, each without its line ending (\n, \r\n or \r),
// after a leading byte order mark, as a signed 32-bit number. Line endings changed from
// LF to CRLF leave it as it was.
func FlywayChecksum(src []byte) int32 {
	src = bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
	h := crc32.NewIEEE()
	for len(src) > 0 {
		i := bytes.IndexAny(src, "\r\n")
		if i < 0 {
			h.Write(src)
			break
		}
		h.Write(src[:i])
		if src[i] == '\r' && i+1 < len(src) && src[i+1] == '\n' {
			i++
		}
		src = src[i+1:]
	}
	return int32(h.Sum32())
}
