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
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/agentbox/agentbox/core/grep"
	"github.com/agentbox/agentbox/core/walk"
	"github.com/gofrs/flock"
	"github.com/google/renameio/v2"
	"golang.org/x/sys/unix"
)

// BuildOptions say what a build covers and how much memory it may hold.
type BuildOptions struct {
	Walk         walk.Options // the files covered: grep's default walk
	MaxPostings  int          // (trigram, file) pairs gathered at a time, over all segments being built; 0: 8 Mi (64 MB while building)
	MaxFileBytes int64        // larger files are left to the search; 0: 16 MiB
	// MaxSegmentFiles caps the files of one segment; 0 or more than maxSegmentFiles:
	// maxSegmentFiles.
	MaxSegmentFiles int
	// RacyWindow replaces the package's RacyWindow when non-zero; negative: none
	// (tests that build right after writing their files).
	RacyWindow time.Duration
}

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
	if opt.MaxSegmentFiles <= 0 || opt.MaxSegmentFiles > maxSegmentFiles {
		opt.MaxSegmentFiles = maxSegmentFiles
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

	// The postings and their sort live in pairBuffers' mappings; the heap holds the
	// paths, records and files being read, and a limit keeps the collector from letting
	// it double past what is live.
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(buildMemoryLimit))
	b := &builder{dir: dir, opt: opt, start: time.Now(), id: fmt.Sprintf("%d-%d", time.Now().UnixNano(), os.Getpid())}
	n := shardCount()
	b.shards = make(chan *shard, n)
	for range n {
		// Untouched capacity costs no memory until used (fresh pages), and growing the
		// slice by copies cost more than a tenth of a build.
		limit := max(opt.MaxPostings/n, 1)
		sh := &shard{limit: limit, maxFiles: opt.MaxSegmentFiles}
		sh.tris, sh.spare, sh.unmap = postingBuffers(limit)
		defer sh.unmap()
		b.all = append(b.all, sh)
		b.shards <- sh
	}
	b.meta = Meta{Root: root, Built: b.start, Walk: WalkKey(opt.Walk)}
	st, err := walk.Walk(ctx, root, opt.Walk, func(e *walk.Entry) error {
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
		err = b.flushAll()
	}
	b.meta.Unlistable = st.Unlistable.Count
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
	// Shards gather files side by side, each into segments of its own, so that no
	// worker waits on another's file or on a segment being encoded and written.
	shards chan *shard
	all    []*shard

	mu      sync.Mutex // guards meta.Segments and nextSeg
	meta    Meta
	nextSeg int
}

// A shard gathers the files of one segment at a time.
type shard struct {
	limit    int // postings per segment
	maxFiles int // files per segment
	paths    []string
	recs     []record
	flags    []uint32 // binaryFlag, searchFlag, linkFlag, otherFlag
	ends     []uint32 // where each file's trigrams end in tris
	tris     []uint32 // the files' trigrams, file after file
	spare    []uint32 // the sort's second buffer, then the encoded postings
	unmap    func()   // releases tris' and spare's memory
	files    int      // totals over the shard's segments
	bytes    int64
	posts    int64
}

// maxSegmentFiles is the most files one segment holds: the sort packs a file id into
// the 20 bits a trigram's half leaves of 32.
const maxSegmentFiles = 1 << idBits

const idBits = 20

// shardCount is how many shards a build gathers into: one per CPU, up to 4. Each
// holds its share of MaxPostings, so more would only make more, smaller segments
// (a search looks a file up in each segment until one knows it).
func shardCount() int { return min(max(runtime.GOMAXPROCS(0), 1), 4) }

var scratchPool = sync.Pool{New: func() any { return &scratch{seen: new([1 << 18]uint64)} }}

type scratch struct {
	seen *[1 << 18]uint64 // one bit per trigram, clear between files
	tris []uint32
	buf  []byte // a file's bytes
}

// add reads one file and records its trigrams, or records it as left to the search.
func (b *builder) add(path, rel string) error {
	sc := scratchPool.Get().(*scratch)
	defer scratchPool.Put(sc)
	rec, flags, data, ok := b.read(path, sc.buf)
	if !ok {
		return nil // gone or replaced since the walk met it: a later walk or rescan sees what it is now
	}
	if cap(data) <= 1<<20 {
		sc.buf = data[:0] // kept for the next file; a big one's buffer is not
	}
	if flags != 0 {
		return b.record(rel, rec, flags, nil)
	}
	sc.tris = appendTrigrams(sc.tris[:0], sc.seen, data)
	for _, t := range sc.tris {
		sc.seen[t>>6] = 0
	}
	return b.record(rel, rec, 0, sc.tris)
}

// read opens the file at path, which the walk met as a regular file, and reads it
// into buf (grown as needed) if the build is to index it: flags 0, or binaryFlag for
// a file with a NUL byte in its first grep.ChunkSize bytes. Any other file is left to
// the search (searchFlag): too large, with other links (written through a path no
// watch sees), changed within the racy window of the build's start, unreadable,
// shrunk or failing while read, UTF-16 (the search decodes it), or with its first NUL
// further in (what the search makes of it depends on its mode). ok is false when the entry is no
// longer a regular file. Raw system calls: an os.File costs an epoll registration
// attempt per file.
func (b *builder) read(path string, buf []byte) (rec record, flags uint32, data []byte, ok bool) {
	// O_NOFOLLOW: a link put in its place is not read; O_NONBLOCK: nor is a FIFO waited on.
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	for err == unix.EINTR {
		fd, err = unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	}
	var st unix.Stat_t
	if err != nil {
		if lstat(path, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
			return record{}, 0, buf, false
		}
		return recordOf(&st), searchFlag, buf, true // unreadable
	}
	defer unix.Close(fd)
	if unix.Fstat(fd, &st) != nil {
		return record{}, 0, buf, false
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return record{}, 0, buf, false
	}
	rec = recordOf(&st)
	if st.Size > b.opt.MaxFileBytes || st.Nlink > 1 || rec.racy(b.start, b.opt.RacyWindow) {
		return rec, searchFlag, buf, true
	}
	if int64(cap(buf)) < rec.size {
		buf = make([]byte, 0, rec.size)
	}
	data = buf[:rec.size]
	n := 0
	for n < len(data) {
		m, err := unix.Read(fd, data[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil || m == 0 {
			break
		}
		n += m
	}
	if n != len(data) {
		return rec, searchFlag, data[:0], true // it shrank while read, or a read failed
	}
	// A write while it was read, or since, gave the file a ctime after the build's
	// start, which the record (older than the racy window) cannot match: searches and
	// the watcher see it as changed. So no second fstat.
	if len(data) >= 2 && (data[0] == 0xFF && data[1] == 0xFE || data[0] == 0xFE && data[1] == 0xFF) {
		return rec, searchFlag, data, true
	}
	if z := bytes.IndexByte(data, 0); z >= 0 {
		if z >= grep.ChunkSize {
			return rec, searchFlag, data, true
		}
		return rec, binaryFlag, data, true
	}
	return rec, 0, data, true
}

// appendTrigrams appends the trigrams of data (ASCII case folded) that seen does not
// hold yet, and adds them to seen.
func appendTrigrams(tris []uint32, seen *[1 << 18]uint64, data []byte) []uint32 {
	if len(data) < 3 {
		return tris
	}
	t := uint32(lowerTable[data[0]])<<8 | uint32(lowerTable[data[1]])
	for _, c := range data[2:] {
		t = (t<<8 | uint32(lowerTable[c])) & (1<<24 - 1)
		// A branch: most trigrams repeat, and a branch-free store of every one made
		// each byte wait for the previous byte's store.
		if w, bit := &seen[t>>6], uint64(1)<<(t&63); *w&bit == 0 {
			*w |= bit
			tris = append(tris, t)
		}
	}
	return tris
}

// lowerTable folds ASCII upper case, as lower does.
var lowerTable = func() (t [256]byte) {
	for c := range t {
		t[c] = lower(byte(c))
	}
	return t
}()

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

// record adds one file with its flags and trigrams to a free shard, which writes its
// segment first when the file's postings would not fit.
func (b *builder) record(rel string, rec record, flags uint32, tris []uint32) error {
	sh := <-b.shards
	defer func() { b.shards <- sh }()
	if (len(sh.tris)+len(tris) > sh.limit || len(sh.paths) >= sh.maxFiles) && len(sh.paths) > 0 {
		if err := b.flush(sh); err != nil {
			return err
		}
	}
	sh.paths = append(sh.paths, rel)
	sh.recs = append(sh.recs, rec)
	sh.flags = append(sh.flags, flags)
	sh.tris = append(sh.tris, tris...)
	sh.ends = append(sh.ends, uint32(len(sh.tris)))
	sh.files++
	if flags&(searchFlag|linkFlag|otherFlag) == 0 {
		sh.bytes += rec.size
	}
	sh.posts += int64(len(tris))
	return nil
}

// flush writes the files a shard gathered as one segment.
func (b *builder) flush(sh *shard) error {
	if len(sh.paths) == 0 {
		return nil
	}
	parts := sh.encode()
	b.mu.Lock()
	name := fmt.Sprintf("seg-%s-%d.idx", b.id, b.nextSeg)
	b.nextSeg++
	b.mu.Unlock()
	if err := writeSegment(filepath.Join(b.dir, name), parts); err != nil {
		return err
	}
	b.mu.Lock()
	b.meta.Segments = append(b.meta.Segments, name)
	b.mu.Unlock()
	sh.paths, sh.recs, sh.flags, sh.ends, sh.tris = sh.paths[:0], sh.recs[:0], sh.flags[:0], sh.ends[:0], sh.tris[:0]
	return nil
}

// flushAll writes every shard's last segment, side by side, and adds up what the
// shards gathered.
func (b *builder) flushAll() error {
	errs := make([]error, len(b.all))
	var wg sync.WaitGroup
	for i, sh := range b.all {
		wg.Go(func() { errs[i] = b.flush(sh) })
	}
	wg.Wait()
	for _, sh := range b.all {
		b.meta.Files += sh.files
		b.meta.Bytes += sh.bytes
		b.meta.Postings += sh.posts
	}
	return errors.Join(errs...)
}

// postingBuffers returns a shard's trigram list (empty, with room for n) and the
// sort's second buffer (n long), mapped outside the Go heap with huge pages asked for:
// a build fills this memory once, and its page faults cost more system time than
// reading the tree (in a virtual machine, each fresh page is the host's fault too), so
// a posting takes 4 bytes in each. Made by the Go heap where the mapping fails.
func postingBuffers(n int) (tris, spare []uint32, unmap func()) {
	mem, err := unix.Mmap(-1, 0, 2*n*4, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return make([]uint32, 0, n), make([]uint32, n), func() {}
	}
	_ = unix.Madvise(mem, unix.MADV_HUGEPAGE) // a hint: without it, 4 KB pages
	words := unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(mem))), 2*n)
	return words[:0:n], words[n : 2*n : 2*n], func() { _ = unix.Munmap(mem) }
}

// sortPostings orders the postings of tris (each file's trigrams, file i's ending at
// ends[i]) by trigram and, within a trigram, by file id: a least-significant-digit
// radix sort on the trigram's two 12-bit halves, through spare (at least as long as
// tris), in which a posting is 32 bits: one half of its trigram above its file id
// (less than 1<<idBits), the other half told by the bucket it is in. On return tris
// holds low<<idBits | id, grouped by the trigram's high half: bucket h is
// tris[high[h-1]:high[h]] (from 0 for h = 0).
func sortPostings(tris, spare, ends []uint32) (high *[1 << 12]uint32) {
	spare = spare[:len(tris)]
	var lo [1 << 12]uint32
	high = new([1 << 12]uint32)
	for _, t := range tris {
		lo[t&(1<<12-1)]++
		high[t>>12]++
	}
	var sumLo, sumHigh uint32
	for d := range lo {
		lo[d], sumLo = sumLo, sumLo+lo[d]
		high[d], sumHigh = sumHigh, sumHigh+high[d]
	}
	loStart := lo
	start := uint32(0)
	for id, end := range ends {
		for _, t := range tris[start:end] {
			d := t & (1<<12 - 1)
			spare[lo[d]] = t>>12<<idBits | uint32(id)
			lo[d]++
		}
		start = end
	}
	// lo[d] is now where bucket d ends, and loStart[d] where it starts.
	for d := range lo {
		for _, p := range spare[loStart[d]:lo[d]] {
			h := p >> idBits
			tris[high[h]] = uint32(d)<<idBits | p&(1<<idBits-1)
			high[h]++
		}
	}
	return high
}

// encode lays out the segment (see segment.go) as the parts to write one after the
// other. Postings are grouped by trigram with each trigram's ids ascending, which
// sortPostings does; they are encoded into the sort's second buffer, free by then (a
// posting's uvarint gap takes at most 3 of its 4 bytes: ids are under 1<<20), so that
// a segment's biggest part costs no fresh memory.
func (sh *shard) encode() [][]byte {
	if len(sh.spare) < len(sh.tris) { // one file with more postings than the shard's limit
		sh.spare = make([]uint32, len(sh.tris))
	}
	high := sortPostings(sh.tris, sh.spare, sh.ends)
	postings := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(sh.spare))), cap(sh.spare)*4)[:0]
	tris := make([]byte, 0, 1<<16)
	ntris := 0
	from := uint32(0)
	for h, to := range high {
		bucket := sh.tris[from:to]
		from = to
		for i := 0; i < len(bucket); {
			low := bucket[i] >> idBits
			start := len(postings)
			prev := uint32(0)
			for ; i < len(bucket) && bucket[i]>>idBits == low; i++ {
				id := bucket[i] & (1<<idBits - 1)
				postings = binary.AppendUvarint(postings, uint64(id-prev))
				prev = id
			}
			tris = binary.LittleEndian.AppendUint32(tris, uint32(h)<<12|low)
			tris = binary.LittleEndian.AppendUint32(tris, uint32(start))
			tris = binary.LittleEndian.AppendUint32(tris, crc32.Checksum(postings[start:], castagnoli()))
			ntris++
		}
	}
	n := len(sh.paths)
	byPath := make([]uint32, n)
	for i := range byPath {
		byPath[i] = uint32(i)
	}
	slices.SortFunc(byPath, func(x, y uint32) int { return strings.Compare(sh.paths[x], sh.paths[y]) })
	pathsLen := 0
	for _, p := range sh.paths {
		pathsLen += len(p)
	}
	head := make([]byte, 0, headerSize+n*(recordSize+4))
	head = append(head, magic...)
	for _, v := range []int{n, ntris, pathsLen, len(postings), 0} { // the checksum last, below
		head = binary.LittleEndian.AppendUint32(head, uint32(v))
	}
	paths, pathOff := make([]byte, 0, pathsLen), 0
	for i, r := range sh.recs {
		head = binary.LittleEndian.AppendUint64(head, uint64(r.size))
		head = binary.LittleEndian.AppendUint64(head, uint64(r.mtime))
		head = binary.LittleEndian.AppendUint64(head, uint64(r.ctime))
		head = binary.LittleEndian.AppendUint64(head, r.ino)
		head = binary.LittleEndian.AppendUint32(head, uint32(pathOff))
		head = binary.LittleEndian.AppendUint32(head, uint32(len(sh.paths[i]))|sh.flags[i])
		paths = append(paths, sh.paths[i]...)
		pathOff += len(sh.paths[i])
	}
	for _, id := range byPath {
		head = binary.LittleEndian.AppendUint32(head, id)
	}
	sum := crc32.Checksum(head[headerSize:], castagnoli())
	sum = crc32.Update(sum, castagnoli(), tris)
	sum = crc32.Update(sum, castagnoli(), paths)
	binary.LittleEndian.PutUint32(head[headerSize-4:], sum)
	return [][]byte{head, tris, paths, postings}
}

// writeSegment writes the parts as the file at path, atomically.
func writeSegment(path string, parts [][]byte) error {
	f, err := renameio.NewPendingFile(path, renameio.WithTempDir(filepath.Dir(path)), renameio.WithPermissions(0o600))
	if err != nil {
		return err
	}
	defer f.Cleanup()
	for _, p := range parts {
		if _, err := f.Write(p); err != nil {
			return err
		}
	}
	return f.CloseAtomicallyReplace()
}

// removeOwn deletes the segments this build wrote, after a failure.
func (b *builder) removeOwn() {
	for _, name := range b.meta.Segments {
		os.Remove(filepath.Join(b.dir, name))
	}
}
