package rail

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
)

// FileFormat is the version of the profile file written by WriteFile.
const FileFormat = 1

// maxFile bounds a profile file: a few rails of a few dozen samples take
// kilobytes, so anything larger is not one.
const maxFile = 1 << 20

// File is the profiles of the rails between two hosts, cached so that a
// job need not sample them again: one Profile per rail, named by its
// local and remote addresses.
type File struct {
	Format int       `json:"format"`
	Local  string    `json:"local"`  // this host
	Remote string    `json:"remote"` // the peer host
	Rails  []Profile `json:"rails"`
}

// WriteFile writes f as JSON.
func WriteFile(w io.Writer, f File) error {
	f.Format = FileFormat
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(f)
}

// ReadFile reads a profile file, checking every profile as NewProfile
// does; a file of another format, or over a megabyte, is refused.
func ReadFile(r io.Reader) (File, error) {
	var f File
	dec := json.NewDecoder(io.LimitReader(r, maxFile+1))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return File{}, fmt.Errorf("%w: profile file: %v", ErrBadProfile, err)
	}
	if f.Format != FileFormat {
		return File{}, fmt.Errorf("%w: profile file format %d, want %d", ErrBadProfile, f.Format, FileFormat)
	}
	for i, p := range f.Rails {
		q, err := NewProfile(p.Name, p.Samples)
		if err != nil {
			return File{}, err
		}
		f.Rails[i] = q
	}
	return f, nil
}

// PredictionError returns, for every fresh measurement, the relative
// error of p's prediction: (predicted - measured) / measured. The
// samples p was made of, measured again, give the noise; sizes between
// them give the interpolation's error too.
func PredictionError(p Profile, fresh []Sample) []float64 {
	errs := make([]float64, len(fresh))
	for i, s := range fresh {
		errs[i] = (p.predict(float64(s.Size)) - float64(s.Time)) / float64(s.Time)
	}
	return errs
}

// WorstError is the largest absolute value in errs, 0 for none.
func WorstError(errs []float64) float64 {
	w := 0.0
	for _, e := range errs {
		w = math.Max(w, math.Abs(e))
	}
	return w
}
