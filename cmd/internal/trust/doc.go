// Package trust turns the servers' live catalog into the catalog the tree
// shows and calls may reach: tools the policy denies are left out, and the
// definitions of tools are pinned at their first listing, so that a server
// that later changes a tool's description or schema (a "rug pull") does
// not put the new text in front of an agent until the user trusts it.
//
// A View applies both to every catalog the supervisor publishes and
// checks every call. Pins are kept in a directory, one JSON file per
// server. The package knows nothing of files of the tree, FUSE or Go code
// generation.
package trust
