package index

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentbox/agentbox/core/grep"
	"github.com/agentbox/agentbox/core/walk"
	"github.com/gofrs/flock"
	"github.com/google/renameio/v2"
	"golang.org/x/sys/unix"
)

// BuildOptions say what a build covers and how much memory it may hold.
type BuildOptions struct {
	Walk         walk.Options // the files covered: grep's default walk
	MaxPostings  int          // (trigram, file) pairs per segment; 0: 8 Mi (64 MB while building)
	MaxFileBytes int64        // larger files are left to the search; 0: 16 MiB
	// RacyWindow replaces the package's RacyWindow when non-zero; negative: none
	// (tests that build right after writing their files).
	RacyWindow time.Duration
}

// countingSortMin is the segment size from which postings are grouped by a counting
// sort (a variable so that tests run that path on small trees).
var countingSortMin = 1 << 20

// buildMemoryLimit is the Go heap limit while a build runs.
const buildMemoryLimit = 256 << 20

// ErrBusy: another process is building this index.
var ErrBusy = errors.New("index: another build of this index is running")

// Build indexes the files under root into the index folder of root, replacing the
// index there: text files with their trigrams, binary ones (a NUL byte in the first
// grep.ChunkSize bytes) as binary. UTF-16 files, files with a NUL only further in,
// files over MaxFileBytes, unreadable ones and files changed within RacyWindow of the
// start, and files with more than one link, are recorded as left to the search: every
// search reads them.
func Build(ctx context.Context, cacheHome, root string, opt BuildOptions) (Meta, error) {
	root = filepath.Clean(root)
	if opt.MaxPostings <= 0 {
		opt.MaxPostings = 8 << 20
	}
	if opt.MaxFileBytes <= 0 {
		opt.MaxFileBytes = 16 << 20
	}
	dir := Dir(cacheHome, root)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Meta{}, err
	}
	if fi, err := os.Lstat(dir + ".lock"); err == nil && !fi.Mode().IsRegular() {
		// Opening a FIFO would block the build forever: whatever it is, it is no lock.
		if err := os.RemoveAll(dir + ".lock"); err != nil {
			return Meta{}, err
		}
	}
	lock := flock.New(dir + ".lock")
	ok, err := lock.TryLock()
	if err != nil {
		return Meta{}, err
	}
	if !ok {
		return Meta{}, ErrBusy
	}
	defer lock.Unlock()

	// The live heap peaks near 200 MB (a segment's postings, sorted, and its encoding);
	// without a limit the collector lets the heap double past that.
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(buildMemoryLimit))
	b := &builder{dir: dir, opt: opt, start: time.Now(), id: fmt.Sprintf("%d-%d", time.Now().UnixNano(), os.Getpid()),
		// Untouched capacity costs no memory until used (fresh pages), and growing the
		// slice by copies under the lock cost more than a tenth of a build.
		pairs: make([]uint64, 0, opt.MaxPostings)}
	b.meta = Meta{Root: root, Built: b.start, Walk: WalkKey(opt.Walk)}
	_, err = walk.Walk(ctx, root, opt.Walk, func(e *walk.Entry) error {
		switch {
		case e.IsDir:
			return nil
		case !e.D.Type().IsRegular():
			return b.addOther(e.Path, e.Rel) // a link or a FIFO: glob lists them
		}
		return b.add(e.Path, e.Rel)
	})
	if err == nil {
		err = ctx.Err()
	}
	if err == nil {
		err = b.flush()
	}
	if err != nil {
		b.removeOwn()
		return Meta{}, err
	}
	data, _ := json.MarshalIndent(b.meta, "", "  ")
	if err := renameio.WriteFile(filepath.Join(dir, "meta.json"), data, 0o600, renameio.WithTempDir(dir)); err != nil {
		b.removeOwn()
		return Meta{}, err
	}
	// The old segments go; a search that opened them keeps its mapping until it ends.
	if entries, err := os.ReadDir(dir); err == nil {
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".idx") && !slices.Contains(b.meta.Segments, e.Name()) {
				os.Remove(filepath.Join(dir, e.Name()))
			}
		}
	}
	return b.meta, nil
}

type builder struct {
	dir   string
	opt   BuildOptions
	start time.Time
	id    string

	mu     sync.Mutex
	meta   Meta
	paths  []string
	recs   []record
	flags  []uint32 // binaryFlag, searchFlag, linkFlag, otherFlag
	pairs  []uint64 // trigram<<32 | file id, ids ascending
	counts []uint32 // scratch of flush, kept between segments
}

var scratchPool = sync.Pool{New: func() any { return &scratch{seen: newBitset(1 << 24)} }}

type scratch struct {
	seen bitset
	tris []uint32
	buf  []byte // a file's bytes
}

// add reads one file and records its trigrams, or records it as left to the search.
func (b *builder) add(path, rel string) error {
	var st unix.Stat_t
	if lstat(path, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil // gone or replaced since the walk met it: a later walk or rescan sees what it is now
	}
	rec := recordOf(&st)
	// A file with other links can be written through a path no watch sees.
	if st.Size > b.opt.MaxFileBytes || st.Nlink > 1 || rec.racy(b.start, b.opt.RacyWindow) {
		return b.record(rel, rec, searchFlag, nil)
	}
	sc := scratchPool.Get().(*scratch)
	defer scratchPool.Put(sc)
	data, err := readRegular(path, rec, sc.buf)
	if err == nil && cap(data) <= 1<<20 {
		sc.buf = data[:0] // kept for the next file; a big one's buffer is not
	}
	if err != nil {
		return b.record(rel, rec, searchFlag, nil) // unreadable, replaced, or changed while read
	}
	if len(data) >= 2 && (data[0] == 0xFF && data[1] == 0xFE || data[0] == 0xFE && data[1] == 0xFF) {
		return b.record(rel, rec, searchFlag, nil) // UTF-16: the search decodes it
	}
	if z := bytes.IndexByte(data, 0); z >= 0 {
		if z >= grep.ChunkSize {
			return b.record(rel, rec, searchFlag, nil) // what the search makes of a later NUL depends on its mode
		}
		return b.record(rel, rec, binaryFlag, nil) // the search counts it as binary, unread
	}
	sc.tris = sc.tris[:0]
	if len(data) >= 3 {
		t := uint32(lower(data[0]))<<8 | uint32(lower(data[1])) // rolled: one fold per byte
		for _, c := range data[2:] {
			t = (t<<8 | uint32(lower(c))) & (1<<24 - 1)
			if w, bit := &sc.seen[t/64], uint64(1)<<(t%64); *w&bit == 0 {
				*w |= bit
				sc.tris = append(sc.tris, t)
			}
		}
	}
	for _, t := range sc.tris {
		sc.seen[t/64] = 0
	}
	return b.record(rel, rec, 0, sc.tris)
}

// addOther records an entry that is not a regular file or a folder.
func (b *builder) addOther(path, rel string) error {
	var st unix.Stat_t
	if lstat(path, &st) != nil {
		return nil
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		return b.record(rel, recordOf(&st), linkFlag, nil)
	case unix.S_IFREG, unix.S_IFDIR:
		return nil // replaced since the walk met it: a later walk or rescan sees what it is now
	}
	return b.record(rel, recordOf(&st), otherFlag, nil)
}

// record adds one file with its flags and trigrams to the segment being gathered.
func (b *builder) record(rel string, rec record, flags uint32, tris []uint32) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.pairs)+len(tris) > b.opt.MaxPostings && len(b.paths) > 0 {
		if err := b.flush(); err != nil {
			return err
		}
	}
	id := uint64(len(b.paths))
	b.paths = append(b.paths, rel)
	b.recs = append(b.recs, rec)
	b.flags = append(b.flags, flags)
	for _, t := range tris {
		b.pairs = append(b.pairs, uint64(t)<<32|id)
	}
	b.meta.Files++
	if flags&(searchFlag|linkFlag|otherFlag) == 0 {
		b.meta.Bytes += rec.size
	}
	b.meta.Postings += int64(len(tris))
	return nil
}

// flush writes the files gathered so far as one segment.
func (b *builder) flush() error {
	if len(b.paths) == 0 {
		return nil
	}
	data := b.encode()
	name := fmt.Sprintf("seg-%s-%d.idx", b.id, len(b.meta.Segments))
	if err := renameio.WriteFile(filepath.Join(b.dir, name), data, 0o600, renameio.WithTempDir(b.dir)); err != nil {
		return err
	}
	b.meta.Segments = append(b.meta.Segments, name)
	b.paths, b.recs, b.flags, b.pairs = b.paths[:0], b.recs[:0], b.flags[:0], b.pairs[:0]
	return nil
}

// encode lays out the segment (see segment.go). Postings are grouped by trigram with
// each trigram's ids ascending: sorting the pairs does it, and for a large segment a
// counting sort over the 2^24 trigrams does it faster.
func (b *builder) encode() []byte {
	tris, postings := make([]byte, 0, 1<<16), make([]byte, 0, len(b.pairs)+len(b.pairs)/2)
	ntris := 0
	emit := func(t uint32, ids func(yield func(uint32))) {
		start := len(postings)
		prev := uint32(0)
		ids(func(id uint32) {
			postings = binary.AppendUvarint(postings, uint64(id-prev))
			prev = id
		})
		tris = binary.LittleEndian.AppendUint32(tris, t)
		tris = binary.LittleEndian.AppendUint32(tris, uint32(start))
		tris = binary.LittleEndian.AppendUint32(tris, crc32.Checksum(postings[start:], castagnoli()))
		ntris++
	}
	if len(b.pairs) < countingSortMin {
		slices.Sort(b.pairs) // trigram-major, id-minor
		for i := 0; i < len(b.pairs); {
			j := i
			for j < len(b.pairs) && b.pairs[j]>>32 == b.pairs[i]>>32 {
				j++
			}
			run := b.pairs[i:j]
			emit(uint32(run[0]>>32), func(yield func(uint32)) {
				for _, p := range run {
					yield(uint32(p))
				}
			})
			i = j
		}
	} else {
		if b.counts == nil {
			b.counts = make([]uint32, 1<<24+1)
		} else {
			clear(b.counts)
		}
		for _, p := range b.pairs {
			b.counts[p>>32+1]++
		}
		for t := 1; t <= 1<<24; t++ {
			b.counts[t] += b.counts[t-1]
		}
		sorted := make([]uint32, len(b.pairs)) // ids by trigram, in the order they came
		for _, p := range b.pairs {
			t := p >> 32
			sorted[b.counts[t]] = uint32(p)
			b.counts[t]++
		}
		// b.counts[t] is now the end of trigram t's ids and the start of t+1's.
		start := uint32(0)
		for t := 0; t < 1<<24; t++ {
			end := b.counts[t]
			if end == start {
				continue
			}
			run := sorted[start:end]
			emit(uint32(t), func(yield func(uint32)) {
				for _, id := range run {
					yield(id)
				}
			})
			start = end
		}
	}
	n := len(b.paths)
	byPath := make([]uint32, n)
	for i := range byPath {
		byPath[i] = uint32(i)
	}
	slices.SortFunc(byPath, func(x, y uint32) int { return strings.Compare(b.paths[x], b.paths[y]) })
	var paths []byte
	out := make([]byte, 0, headerSize+n*(recordSize+4)+len(tris)+len(postings))
	out = append(out, magic...)
	pathsLen := 0
	for _, p := range b.paths {
		pathsLen += len(p)
	}
	for _, v := range []int{n, ntris, pathsLen, len(postings), 0} { // the checksum last, below
		out = binary.LittleEndian.AppendUint32(out, uint32(v))
	}
	for i, r := range b.recs {
		out = binary.LittleEndian.AppendUint64(out, uint64(r.size))
		out = binary.LittleEndian.AppendUint64(out, uint64(r.mtime))
		out = binary.LittleEndian.AppendUint64(out, uint64(r.ctime))
		out = binary.LittleEndian.AppendUint64(out, r.ino)
		out = binary.LittleEndian.AppendUint32(out, uint32(len(paths)))
		out = binary.LittleEndian.AppendUint32(out, uint32(len(b.paths[i]))|b.flags[i])
		paths = append(paths, b.paths[i]...)
	}
	for _, id := range byPath {
		out = binary.LittleEndian.AppendUint32(out, id)
	}
	out = append(out, tris...)
	out = append(out, paths...)
	out = append(out, postings...)
	binary.LittleEndian.PutUint32(out[headerSize-4:], crc32.Checksum(out[headerSize:len(out)-len(postings)], castagnoli()))
	return out
}

// removeOwn deletes the segments this build wrote, after a failure.
func (b *builder) removeOwn() {
	for _, name := range b.meta.Segments {
		os.Remove(filepath.Join(b.dir, name))
	}
}

// readRegular reads the file at path into buf (grown as needed) if it is still the one
// rec describes, before and after the reading (fstat of the open file), without
// blocking if it was replaced by a FIFO or a device in the meantime. Raw system calls:
// an os.File costs an epoll registration attempt per file.
func readRegular(path string, rec record, buf []byte) ([]byte, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	for err == unix.EINTR {
		fd, err = unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || recordOf(&st) != rec {
		return nil, errChanged
	}
	if int64(cap(buf)) < rec.size+1 {
		buf = make([]byte, 0, rec.size+1)
	}
	data := buf[:rec.size+1] // one byte more: a file that grew reads past its size
	n := 0
	for n < len(data) {
		m, err := unix.Read(fd, data[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if m == 0 {
			break
		}
		n += m
	}
	if int64(n) != rec.size || unix.Fstat(fd, &st) != nil || recordOf(&st) != rec {
		return nil, errChanged
	}
	return data[:n], nil
}

var errChanged = errors.New("index: the file changed while it was read")
