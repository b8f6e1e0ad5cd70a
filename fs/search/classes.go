package search

import (
	"regexp"
	"strings"
)

// Some things in a query say what they are by their form, not by their
// words: a pair of decimal numbers is a position on the earth, two numbers
// joined by "and" or "plus" a sum to work out, "#general"
// a channel, "@dana" a user, "example.com" a web address, "photo.png" an
// image file. classWords returns the words those forms stand for, to be
// searched with the query's own.
func classWords(query string) string {
	var out []string
	for _, c := range classes {
		if c.re.MatchString(query) {
			out = append(out, c.words)
		}
	}
	for _, m := range fileName.FindAllStringSubmatch(query, -1) {
		if w, ok := extensions[strings.ToLower(m[1])]; ok {
			out = append(out, w)
		}
	}
	return strings.Join(out, " ")
}

var classes = []struct {
	re    *regexp.Regexp
	words string
}{
	{regexp.MustCompile(`-?\d{1,3}\.\d+\s*[,;/ ]\s*-?\d{1,3}\.\d+`), "coordinates"},
	{regexp.MustCompile(`(^|\s)#[A-Za-z][\w-]*`), "channel"},
	{regexp.MustCompile(`(^|\s)@[A-Za-z][\w.-]*`), "user"},
	{regexp.MustCompile(`(^|\s)\d+(\.\d+)?\s+(and|\+|plus|to)\s+\d+(\.\d+)?(\s|$)`), "numbers sum calculate"},
	{regexp.MustCompile(`(?i)\bhttps?://|\bwww\.|\b[a-z0-9-]+\.(com|org|net|io|dev|app|edu|gov|co)\b`), "url"},
}

// fileName finds names with an extension: "notes.md", "budget.xlsx".
var fileName = regexp.MustCompile(`\b[\w-]+\.([A-Za-z][A-Za-z0-9]{0,4})\b`)

// extensions are common file extensions and the kind of file each names.
var extensions = func() map[string]string {
	m := map[string]string{}
	for kind, exts := range map[string]string{
		"file": "txt md markdown rst log ini cfg conf toml yaml yml json xml csv tsv html htm css env " +
			"go py js ts tsx jsx java c h cpp rs rb php sh sql kt swift cs",
		"file document": "pdf doc docx odt rtf xls xlsx ods ppt pptx",
		"file image":    "png jpg jpeg gif bmp svg webp tiff ico heic",
		"file audio":    "mp3 wav ogg flac m4a aac",
		"file video":    "mp4 mov avi mkv webm",
		"file archive":  "zip gz tgz tar rar 7z bz2 xz",
	} {
		for _, e := range strings.Fields(exts) {
			m[e] = kind
		}
	}
	return m
}()
