package demotools

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/toolexplorer/toolexplorer/tooling"
)

var fsReadFileInput = json.RawMessage(`{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "title": "Read-file arguments",
  "properties": {
    "path": {
      "type": "string",
      "title": "Path",
      "description": "The file to read, relative to the workspace (no absolute paths, no \"..\").",
      "minLength": 1,
      "maxLength": 4096
    }
  },
  "required": ["path"],
  "additionalProperties": false
}`)

var fsReadFileOutput = json.RawMessage(`{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "title": "Read-file result",
  "properties": {
    "path": {
      "type": "string",
      "title": "Path",
      "description": "The path read, as given."
    },
    "size": {
      "type": "integer",
      "title": "Size",
      "description": "The file's size in bytes.",
      "minimum": 0
    },
    "text": {
      "type": "string",
      "title": "Text",
      "description": "The file's content as text, at most 64 KiB of it."
    },
    "truncated": {
      "type": "boolean",
      "title": "Truncated",
      "description": "True when the file is longer than the text returned."
    }
  },
  "required": ["path", "size", "text", "truncated"],
  "additionalProperties": false
}`)

type fsReadFileResult struct {
	Path      string `json:"path"`
	Size      int64  `json:"size"`
	Text      string `json:"text"`
	Truncated bool   `json:"truncated"`
}

func init() {
	tooling.Register(tooling.Tool{
		Name:        "fs.read_file",
		Title:       "Read file",
		Description: "Reads a file of the workspace directory (the config's confinement.workspace) and returns its size and its text, cut at 64 KiB. The path is relative to the workspace; absolute paths and \"..\" are refused. It runs confined: it can read the workspace and nothing else, not even through a symbolic link.",
		Input:       fsReadFileInput,
		Output:      fsReadFileOutput,
		Meta: tooling.Meta{
			Concurrency: tooling.ReadOnly,
			Effects:     tooling.EffectRead | tooling.EffectFilesystem,
			Idempotent:  true,
			Tags:        []string{"demo", "fs", "confined"},
			Version:     "1.0.0",
			Confine:     &tooling.Confinement{Read: []string{"$WORKSPACE"}},
		},
		Run: runFSReadFile,
	})
}

func runFSReadFile(_ context.Context, c tooling.Call) (any, error) {
	var in struct {
		Path string `json:"path"`
	}
	if err := c.Decode(&in); err != nil {
		return nil, err
	}
	p := in.Path
	full, err := inWorkspace(c, p)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(full)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%q is a directory: list it with fs.list_dir", p)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxText+1))
	if err != nil {
		return nil, err
	}
	text, cut := cutText(b, maxText)
	return fsReadFileResult{Path: p, Size: max(st.Size(), int64(len(b))), Text: text, Truncated: cut}, nil
}
