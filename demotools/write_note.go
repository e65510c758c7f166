package demotools

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// maxNotes bounds the notes demo.write_note keeps; the oldest go first.
const maxNotes = 1000

var writeNoteInput = json.RawMessage(`{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "title": "Write-note arguments",
  "properties": {
    "text": {
      "type": "string",
      "title": "Text",
      "description": "The note, 1 to 10000 characters.",
      "minLength": 1,
      "maxLength": 10000
    },
    "tags": {
      "type": "array",
      "title": "Tags",
      "description": "Words to file the note under, each at most once.",
      "items": {
        "type": "string",
        "title": "Tag",
        "description": "One tag."
      },
      "uniqueItems": true
    }
  },
  "required": ["text"],
  "additionalProperties": false
}`)

var writeNoteOutput = json.RawMessage(`{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "title": "Write-note result",
  "properties": {
    "id": {
      "type": "string",
      "title": "Note id",
      "description": "The new note's id, \"note-N\", N increasing from 1.",
      "pattern": "^note-[1-9][0-9]*$"
    },
    "count": {
      "type": "integer",
      "title": "Count",
      "description": "How many notes are kept now, the new one included.",
      "minimum": 1
    }
  },
  "required": ["id", "count"],
  "additionalProperties": false
}`)

type writeNoteArgs struct {
	Text string   `json:"text"`
	Tags []string `json:"tags"`
}

type writeNoteResult struct {
	ID    string `json:"id"`
	Count int    `json:"count"`
}

type note struct {
	id      string
	text    string
	tags    []string
	written time.Time
}

// noteStore is demo.write_note's own state: notes in memory, in the order
// they were written.
type noteStore struct {
	mu    sync.Mutex
	seq   uint64
	notes []note
}

var notes noteStore

// add stores a note and returns its id and how many notes are kept.
func (s *noteStore) add(text string, tags []string, now time.Time) (string, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	id := "note-" + strconv.FormatUint(s.seq, 10)
	if len(s.notes) >= maxNotes {
		s.notes = slices.Delete(s.notes, 0, len(s.notes)-maxNotes+1)
	}
	s.notes = append(s.notes, note{id: id, text: text, tags: slices.Clone(tags), written: now})
	return id, len(s.notes)
}

func init() {
	tooling.Register(tooling.Tool{
		Name:        "demo.write_note",
		Title:       "Write note",
		Description: "Stores a text note, with optional tags, in the host's memory and returns its id (\"note-N\") and how many notes are kept (at most 1000; the oldest go first). It changes state, so every call needs consent, and calls run one at a time.",
		Input:       writeNoteInput,
		Output:      writeNoteOutput,
		Meta: tooling.Meta{
			Concurrency: tooling.Exclusive,
			Resources:   []string{"notes"},
			Effects:     tooling.EffectWrite,
			Consent:     true,
			// Each call adds a note: a retry with the call's idempotency
			// key adds none.
			IdempotencyKeys: true,
			Tags:            []string{"demo", "governance", "consent", "state"},
			Version:         "1.0.0",
		},
		Run: runWriteNote,
	})
}

func runWriteNote(_ context.Context, c tooling.Call) (any, error) {
	var a writeNoteArgs
	if err := c.Decode(&a); err != nil {
		return nil, err
	}
	id, n := notes.add(a.Text, a.Tags, time.Now())
	return writeNoteResult{ID: id, Count: n}, nil
}
