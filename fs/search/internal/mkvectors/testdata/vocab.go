package search

var synonymLines = `
save write store stash
`

var relatedLines = `
jot: write
`

var phraseLines = ``
