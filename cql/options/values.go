package options

import (
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
)

// The parsers below read option values the way Cassandra 5.0 reads them (with Java's
// Integer.parseInt, Long.parseLong, Float.parseFloat and its own size and percent
// parsers), because a value the model reads differently from the node is either a false
// refusal or a statement that fails halfway through a migration.

// javaInt reads s as Java's Integer.parseInt does: an optional sign, decimal digits, no
// spaces, within 32 bits.
func javaInt(s string) (int64, bool) {
	return javaInteger(s, 32)
}

// javaLong reads s as Java's Long.parseLong does.
func javaLong(s string) (int64, bool) {
	return javaInteger(s, 64)
}

func javaInteger(s string, bits int) (int64, bool) {
	digits := strings.TrimLeft(s, "+-")
	if len(s)-len(digits) > 1 || digits == "" {
		return 0, false
	}
	for _, r := range digits {
		if r < '0' || r > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, bits)
	return n, err == nil
}

// digitsOnly is commons-lang's StringUtils.isNumeric as CompactionParams uses it for
// min_threshold and max_threshold: digits and nothing else, not even a sign.
func digitsOnly(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// javaDecimal matches what Java's Float.parseFloat and Double.parseDouble accept once
// trimmed: NaN, Infinity, decimal numbers with an exponent and an f/F/d/D suffix, and hex
// floating-point literals.
var javaDecimal = regexp.MustCompile(`^[+-]?(NaN|Infinity|((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?\d+)[fFdD]?)$`)

// javaDouble reads s as Java's Double.parseDouble does (it trims ASCII control characters
// and spaces first).
func javaDouble(s string) (float64, bool) {
	s = strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
	if !javaDecimal.MatchString(s) {
		return 0, false
	}
	body := strings.TrimRight(s, "fFdD")
	if strings.HasPrefix(strings.TrimLeft(s, "+-"), "0x") || strings.HasPrefix(strings.TrimLeft(s, "+-"), "0X") {
		body = s
		if last := body[len(body)-1]; last == 'f' || last == 'F' || last == 'd' || last == 'D' {
			body = body[:len(body)-1]
		}
	}
	switch strings.TrimLeft(body, "+-") {
	case "NaN":
		return math.NaN(), true
	case "Infinity":
		if strings.HasPrefix(body, "-") {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	}
	f, err := strconv.ParseFloat(body, 64)
	if err != nil {
		// Out of range: Java gives an infinity or zero rather than an error.
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return f, true
		}
		return 0, false
	}
	return f, true
}

// javaBool is what Cassandra's own true/false checks accept: true or false in any case.
func javaBool(s string) bool {
	return strings.EqualFold(s, "true") || strings.EqualFold(s, "false")
}

// sizeValue matches Cassandra's human-readable sizes as UCS reads them: a number, optional
// spaces, an optional SI or binary prefix (k is not one: 5.0 wants K or Ki) and the unit B.
var sizeValue = regexp.MustCompile(`^\s*([+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)\s*(([qryzafpnumKMGTPEZYRQ])(i?))?B$`)

// siExponent is the power of 1000 (or of 1024 with "i") of each prefix.
var siExponent = map[string]int{
	"q": -10, "r": -9, "y": -8, "z": -7, "a": -6, "f": -5, "p": -4, "n": -3, "u": -2, "m": -1,
	"K": 1, "M": 2, "G": 3, "T": 4, "P": 5, "E": 6, "Z": 7, "Y": 8, "R": 9, "Q": 10,
}

// parseSize reads a size such as "1GiB", "1 GiB", "160MB" or "0B" in bytes.
func parseSize(s string) (float64, bool) {
	m := sizeValue.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	f, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, false
	}
	if m[5] != "" {
		base := 1000.0
		if m[6] == "i" {
			base = 1024
		}
		f *= math.Pow(base, float64(siExponent[m[5]]))
	}
	return f, true
}

// parsePercent reads "0.5" or "50%" as FBUtilities.parsePercent does.
func parsePercent(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if strings.HasSuffix(s, "%") {
		f, ok := javaDouble(strings.TrimSpace(strings.TrimSuffix(s, "%")))
		return f / 100, ok
	}
	return javaDouble(s)
}

// bigPow returns base**exp * mul as a big integer, for the LCS level-size check.
func bigPow(base, exp int64, mul int64) *big.Int {
	r := new(big.Int).Exp(big.NewInt(base), big.NewInt(exp), nil)
	return r.Mul(r, big.NewInt(mul))
}

// Speculative retry policies as 5.0 writes them: NEVER/NONE, ALWAYS, a percentile
// ("99p", "99PERCENTILE"), a fixed delay ("50ms"), or MIN/MAX of one of each.
var (
	retryPercentile = regexp.MustCompile(`^([0-9.]+)p(ercentile)?$`)
	retryFixed      = regexp.MustCompile(`^([0-9.]+)ms$`)
	retryHybrid     = regexp.MustCompile(`^(min|max)\(([0-9.]+[a-z]+)\s*,\s*([0-9.]+[a-z]+)\)$`)
)

// retryKind classifies one speculative retry value: "percentile" or "fixed", or "" with a
// reason when 5.0 refuses it.
func retryKind(v string) (kind, problem string) {
	l := strings.ToLower(v)
	if m := retryPercentile.FindStringSubmatch(l); m != nil {
		f, ok := javaDouble(m[1])
		if !ok || strings.ContainsAny(m[1], "eE") {
			return "", "not a number"
		}
		if f <= 0 || f >= 100 {
			return "", "a percentile must be between 0 and 100, both excluded"
		}
		return "percentile", ""
	}
	if m := retryFixed.FindStringSubmatch(l); m != nil {
		if _, ok := javaDouble(m[1]); !ok {
			return "", "not a number"
		}
		return "fixed", ""
	}
	return "", ""
}

// checkRetryPolicy reports why 5.0 refuses v as a speculative_retry or
// additional_write_policy value, or "" when it accepts it.
func checkRetryPolicy(v string) string {
	const accepted = "5.0 accepts NEVER, NONE, ALWAYS, a percentile such as '99p' or '99PERCENTILE', a delay such as '50ms', or MIN(...)/MAX(...) of one percentile and one delay"
	l := strings.ToLower(v)
	switch l {
	case "never", "none", "always":
		return ""
	}
	if m := retryHybrid.FindStringSubmatch(l); m != nil {
		k1, p1 := retryKind(m[2])
		k2, p2 := retryKind(m[3])
		switch {
		case k1 == "" || k2 == "":
			return firstNonEmpty(p1, p2, accepted)
		case k1 == k2:
			return "MIN()/MAX() needs one percentile and one delay, not two of type " + k1
		}
		return ""
	}
	k, p := retryKind(v)
	if k == "" {
		return firstNonEmpty(p, accepted)
	}
	return ""
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
