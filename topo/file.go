package topo

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// Save writes m as indented JSON in the current FormatVersion.
func (m *Model) Save(w io.Writer) error {
	if err := m.Validate(); err != nil {
		return err
	}
	c := *m
	c.Format = FormatVersion
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(&c)
}

// Load reads a model written by Save and validates it. It reads at most
// MaxFileBytes (ErrTooLarge past them) and refuses models past the other
// limits (see MaxCPUs).
func Load(r io.Reader) (*Model, error) {
	var m Model
	dec := json.NewDecoder(LimitReader(r, MaxFileBytes, "model"))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("topo: decoding model: %w", err)
	}
	if m.Format == 0 {
		return nil, fmt.Errorf("%w: no \"format\" field (a Plexus model file has \"format\": %d; see docs/model-format.md)", ErrFormat, FormatVersion)
	}
	if m.Format != FormatVersion {
		return nil, fmt.Errorf("%w: file has format %d, this version reads %d", ErrFormat, m.Format, FormatVersion)
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return &m, nil
}

// ReadFile loads a model file, which must be a regular file of at most
// MaxFileBytes.
func ReadFile(path string) (*Model, error) {
	f, err := OpenFile(path, MaxFileBytes)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m, err := Load(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// WriteFile saves a model to a file.
func (m *Model) WriteFile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := m.Save(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
