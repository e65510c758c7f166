package demotools

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// maxEntries bounds the entries fs.list_dir returns.
const maxEntries = 1000

var fsListDirInput = json.RawMessage(`{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "title": "List-directory arguments",
  "properties": {
    "path": {
      "type": "string",
      "title": "Path",
      "description": "The directory to list, relative to the workspace (no absolute paths, no \"..\"); \".\" is the workspace itself.",
      "default": ".",
      "minLength": 1,
      "maxLength": 4096
    }
  },
  "additionalProperties": false
}`)

var fsListDirOutput = json.RawMessage(`{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "title": "List-directory result",
  "properties": {
    "path": {
      "type": "string",
      "title": "Path",
      "description": "The directory listed, as given."
    },
    "entries": {
      "type": "array",
      "title": "Entries",
      "description": "The directory's entries, sorted by name, at most 1000.",
      "items": {
        "type": "object",
        "title": "Entry",
        "description": "One entry of the directory.",
        "properties": {
          "name": {
            "type": "string",
            "title": "Name",
            "description": "The entry's name."
          },
          "kind": {
            "type": "string",
            "title": "Kind",
            "description": "file, dir, symlink (not followed) or other.",
            "enum": ["file", "dir", "symlink", "other"]
          },
          "size": {
            "type": "integer",
            "title": "Size",
            "description": "The size in bytes (of the link itself for a symlink).",
            "minimum": 0
          }
        },
        "required": ["name", "kind", "size"],
        "additionalProperties": false
      }
    },
    "truncated": {
      "type": "boolean",
      "title": "Truncated",
      "description": "True when the directory has more entries than listed."
    }
  },
  "required": ["path", "entries", "truncated"],
  "additionalProperties": false
}`)

type fsEntry struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	Size int64  `json:"size"`
}

type fsListDirResult struct {
	Path      string    `json:"path"`
	Entries   []fsEntry `json:"entries"`
	Truncated bool      `json:"truncated"`
}

func init() {
	tooling.Register(tooling.Tool{
		Name:        "fs.list_dir",
		Title:       "List directory",
		Description: "Lists a directory of the workspace (the config's confinement.workspace): each entry's name, kind (file, dir, symlink, other) and size, sorted by name, at most 1000. The path is relative to the workspace, \".\" by default; absolute paths and \"..\" are refused. It runs confined to the workspace.",
		Input:       fsListDirInput,
		Output:      fsListDirOutput,
		Meta: tooling.Meta{
			Concurrency: tooling.ReadOnly,
			Effects:     tooling.EffectRead | tooling.EffectFilesystem,
			Idempotent:  true,
			Tags:        []string{"demo", "fs", "confined"},
			Version:     "1.0.0",
			Confine:     &tooling.Confinement{Read: []string{"$WORKSPACE"}},
		},
		Run: runFSListDir,
	})
}

func runFSListDir(_ context.Context, c tooling.Call) (any, error) {
	var in struct {
		Path string `json:"path"`
	}
	if err := c.Decode(&in); err != nil {
		return nil, err
	}
	p := in.Path
	if p == "" {
		p = "."
	}
	full, err := inWorkspace(c, p)
	if err != nil {
		return nil, err
	}
	des, err := os.ReadDir(full)
	if err != nil {
		return nil, err
	}
	res := fsListDirResult{Path: p, Entries: []fsEntry{}}
	if len(des) > maxEntries {
		des, res.Truncated = des[:maxEntries], true
	}
	for _, de := range des {
		e := fsEntry{Name: de.Name(), Kind: "other"}
		switch t := de.Type(); {
		case t.IsRegular():
			e.Kind = "file"
		case t.IsDir():
			e.Kind = "dir"
		case t&fs.ModeSymlink != 0:
			e.Kind = "symlink"
		}
		if info, err := de.Info(); err == nil {
			e.Size = info.Size()
		}
		res.Entries = append(res.Entries, e)
	}
	return res, nil
}
