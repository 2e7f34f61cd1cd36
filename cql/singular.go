package cql

import "strings"

// invariant are words that end in s in the singular, or are the same in both numbers, as
// column names use them.
var invariant = map[string]bool{
	"news": true, "series": true, "species": true, "alias": true, "bias": true, "canvas": true,
	"atlas": true, "gas": true, "lens": true, "chassis": true, "bonus": true, "yes": true,
}

// ieWords are plurals of words ending in ie, which the -ies rule would turn into -y.
var ieWords = map[string]bool{
	"movies": true, "cookies": true, "calories": true, "selfies": true, "rookies": true,
	"zombies": true, "hoodies": true, "goalies": true, "freebies": true, "smoothies": true,
}

// Singular is the English singular of a plural column name, as columns are named: tags ->
// tag, addresses -> address, boxes -> box, categories -> category, statuses -> status,
// aliases -> alias, watches -> watch. A word not ending in s, a word that is singular
// already (address, status, news) and an irregular plural (children) are returned as they
// are. It names the column that holds one element of a collection (each(tags) fills tag)
// and the noun an id column names (post in post_ids).
func Singular(name string) string {
	n := len(name)
	switch {
	case !strings.HasSuffix(name, "s") || n <= 2 || invariant[name]:
		return name
	case ieWords[name]:
		return name[:n-1]
	case strings.HasSuffix(name, "ss"), strings.HasSuffix(name, "us"), strings.HasSuffix(name, "is"):
		return name // address, status, analysis: singular already
	case strings.HasSuffix(name, "ies") && n > 4:
		return name[:n-3] + "y" // categories
	case strings.HasSuffix(name, "sses"), strings.HasSuffix(name, "xes"), strings.HasSuffix(name, "zzes"),
		strings.HasSuffix(name, "ches"), strings.HasSuffix(name, "shes"):
		return name[:n-2] // addresses, boxes, buzzes, watches, wishes
	case strings.HasSuffix(name, "iases"):
		return name[:n-2] // aliases, biases
	case strings.HasSuffix(name, "uses") && n > 5 && strings.ContainsRune("tnrps", rune(name[n-5])):
		return name[:n-2] // statuses, bonuses, viruses, campuses, censuses (but causes, houses)
	}
	return name[:n-1]
}
