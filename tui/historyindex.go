package tui

import (
	"errors"
	"io"
	"os"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/history"
)

// historyIndex is every kept call, read once off the UI goroutine, with
// the text a search looks in. The history screen searches it and lists
// it from memory, so that a key typed into the search, or G, costs a scan
// of strings, not a read and decode of the whole store (1.7 s a key at
// 100,000 calls).
type historyIndex struct {
	entries []history.Entry // the calls started last first, as the store reads
	text    []string        // history.SearchText of each entry
	// The store's file as read: a file that changed since is read again.
	size int64
	mod  time.Time
	err  string
}

// historyIndexMsg brings an index read for the generation gen.
type historyIndexMsg struct {
	gen   int
	index *historyIndex
}

// stale reports whether the store's file changed since ix was read.
func (ix *historyIndex) stale(store *history.Store) bool {
	fi, err := os.Stat(store.Path())
	if err != nil {
		return ix.size != 0 || !errors.Is(err, os.ErrNotExist)
	}
	return fi.Size() != ix.size || !fi.ModTime().Equal(ix.mod)
}

// indexHistoryCmd reads every entry of store into an index.
func indexHistoryCmd(store *history.Store, gen int) tea.Cmd {
	return func() tea.Msg { return historyIndexMsg{gen: gen, index: readIndex(store)} }
}

func readIndex(store *history.Store) *historyIndex {
	ix := &historyIndex{}
	if fi, err := os.Stat(store.Path()); err == nil {
		ix.size, ix.mod = fi.Size(), fi.ModTime()
	}
	r, err := store.Newest()
	if err != nil {
		ix.err = err.Error()
		return ix
	}
	defer r.Close()
	for {
		e, err := r.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				ix.err = err.Error()
			}
			return ix
		}
		ix.entries = append(ix.entries, e)
		ix.text = append(ix.text, history.SearchText(&e))
	}
}

// searchWords are the words of a query as the index matches them.
func searchWords(query string) []string { return strings.Fields(strings.ToLower(query)) }

// matches reports whether entry i holds every word.
func (ix *historyIndex) matches(i int, words []string) bool {
	for _, w := range words {
		if !strings.Contains(ix.text[i], w) {
			return false
		}
	}
	return true
}
