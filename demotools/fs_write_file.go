package demotools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/toolexplorer/toolexplorer/tooling"
)

var fsWriteFileInput = json.RawMessage(`{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "title": "Write-file arguments",
  "properties": {
    "path": {
      "type": "string",
      "title": "Path",
      "description": "The file to write, relative to the workspace (no absolute paths, no \"..\"); missing parent directories are created.",
      "minLength": 1,
      "maxLength": 4096
    },
    "content": {
      "type": "string",
      "title": "Content",
      "description": "The text the file will hold, replacing what it held; at most 1048576 characters.",
      "maxLength": 1048576
    }
  },
  "required": ["path", "content"],
  "additionalProperties": false
}`)

var fsWriteFileOutput = json.RawMessage(`{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "title": "Write-file result",
  "properties": {
    "path": {
      "type": "string",
      "title": "Path",
      "description": "The path written, as given."
    },
    "bytes": {
      "type": "integer",
      "title": "Bytes",
      "description": "How many bytes the file holds now.",
      "minimum": 0
    }
  },
  "required": ["path", "bytes"],
  "additionalProperties": false
}`)

type fsWriteFileResult struct {
	Path  string `json:"path"`
	Bytes int    `json:"bytes"`
}

func init() {
	tooling.Register(tooling.Tool{
		Name:        "fs.write_file",
		Title:       "Write file",
		Description: "Writes text to a file of the workspace (the config's confinement.workspace), creating it and its parent directories or replacing its content, and returns how many bytes it holds. The path is relative to the workspace; absolute paths and \"..\" are refused. It changes files, so every call needs consent; writes run one at a time, confined to the workspace.",
		Input:       fsWriteFileInput,
		Output:      fsWriteFileOutput,
		Meta: tooling.Meta{
			Concurrency: tooling.Exclusive,
			Resources:   []string{"workspace"},
			Effects:     tooling.EffectWrite | tooling.EffectFilesystem,
			Idempotent:  true,
			Tags:        []string{"demo", "fs", "confined", "consent"},
			Version:     "1.0.0",
			Confine:     &tooling.Confinement{Read: []string{"$WORKSPACE"}, Write: []string{"$WORKSPACE"}},
		},
		Run: runFSWriteFile,
	})
}

func runFSWriteFile(_ context.Context, c tooling.Call) (any, error) {
	var in struct {
		Path    string `json:"path"`
		Content string `json:"content"`
	}
	if err := c.Decode(&in); err != nil {
		return nil, err
	}
	p := in.Path
	full, err := inWorkspace(c, p)
	if err != nil {
		return nil, err
	}
	content := in.Content
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		return nil, err
	}
	return fsWriteFileResult{Path: p, Bytes: len(content)}, nil
}
