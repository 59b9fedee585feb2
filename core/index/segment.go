package index

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math/bits"
	"os"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// A segment file, little endian:
//
//	magic    "abidx04\n"
//	nfiles   uint32, ntris uint32, pathsLen uint32, postingsLen uint32
//	crc      uint32: CRC-32C of everything between the header and the postings
//	records  nfiles x {size, mtime, ctime int64; ino uint64; pathOff, pathLen uint32} (40 bytes);
//	         the top bits of pathLen are flags: a binary file (binaryFlag), a file
//	         left to the search (searchFlag: racy, UTF-16, too large, unreadable), a
//	         symbolic link (linkFlag), another entry that is not a folder (otherFlag:
//	         FIFO, socket, device); none has postings. Every entry but folders the
//	         build's walk met has a record, so the records are the tree's file list.
//	byPath   nfiles x uint32: file ids in path order (binary search)
//	tris     ntris x {trigram, postOff, postCRC uint32}, trigrams ascending; postCRC is
//	         the CRC-32C of the trigram's postings, checked when they are read
//	paths    pathsLen bytes
//	postings postingsLen bytes: per trigram, its file ids ascending as uvarint gaps
//
// The file is mapped read-only and checked once on opening: the checksum of its tables
// (a segment damaged on disk must not drop a match) and every offset, so a lookup never
// reads outside it whatever the bytes say (FuzzOpenSegment). A posting list's own
// checksum is checked when a search reads it, so a search pays for the lists it uses,
// not for the whole file; a damaged list makes the segment prune nothing.
const (
	magic      = "abidx04\n"
	headerSize = len(magic) + 20
	recordSize = 40
	triSize    = 12
	binaryFlag = 1 << 31
	searchFlag = 1 << 30
	linkFlag   = 1 << 29
	otherFlag  = 1 << 28
	flagBits   = binaryFlag | searchFlag | linkFlag | otherFlag
)

type segment struct {
	data     []byte
	nfiles   int
	ntris    int
	records  []byte
	byPath   []byte
	tris     []byte
	paths    []byte
	postings []byte
	mapped   bool
}

func openSegment(path string) (*segment, error) {
	f, fi, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() < int64(headerSize) || fi.Size() > 1<<32 {
		return nil, errors.New("index: segment has a bad size")
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	s, err := parseSegment(data)
	if err != nil {
		_ = syscall.Munmap(data)
		return nil, err
	}
	s.mapped = true
	return s, nil
}

func (s *segment) close() {
	if s.mapped && s.data != nil {
		_ = syscall.Munmap(s.data)
	}
	s.data = nil
}

var errCorrupt = errors.New("index: segment is corrupt")

// castagnoli is computed by the CPU's CRC32 instruction; its tables are made on first use
// (0.2 ms of every call's start-up otherwise).
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// openRegular opens a file of the index for reading, refusing anything but a regular
// file without blocking on it (a FIFO put in the cache folder must not hang a search).
func openRegular(path string) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = errors.New("index: " + path + " is not a regular file")
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// parseSegment checks the layout and every offset, so that lookups need no checks.
func parseSegment(data []byte) (*segment, error) {
	if len(data) < headerSize || string(data[:len(magic)]) != magic {
		return nil, errCorrupt
	}
	h := data[len(magic):]
	nfiles, ntris := int(binary.LittleEndian.Uint32(h)), int(binary.LittleEndian.Uint32(h[4:]))
	pathsLen, postLen := int64(binary.LittleEndian.Uint32(h[8:])), int64(binary.LittleEndian.Uint32(h[12:]))
	need := int64(headerSize) + int64(nfiles)*(recordSize+4) + int64(ntris)*triSize + pathsLen + postLen
	if need != int64(len(data)) || crc32.Checksum(data[headerSize:int64(len(data))-postLen], castagnoli()) != binary.LittleEndian.Uint32(h[16:]) {
		return nil, errCorrupt
	}
	s := &segment{data: data, nfiles: nfiles, ntris: ntris}
	off := headerSize
	take := func(n int) []byte {
		b := data[off : off+n]
		off += n
		return b
	}
	s.records = take(nfiles * recordSize)
	s.byPath = take(nfiles * 4)
	s.tris = take(ntris * triSize)
	s.paths = take(int(pathsLen))
	s.postings = take(int(postLen))
	for i := 0; i < nfiles; i++ {
		r := s.records[i*recordSize:]
		po, pl := binary.LittleEndian.Uint32(r[32:]), binary.LittleEndian.Uint32(r[36:])&^flagBits
		if int64(po)+int64(pl) > pathsLen {
			return nil, errCorrupt
		}
		if id := binary.LittleEndian.Uint32(s.byPath[i*4:]); int(id) >= nfiles {
			return nil, errCorrupt
		}
	}
	prev := int64(-1)
	for i := 0; i < ntris; i++ {
		t, po := binary.LittleEndian.Uint32(s.tris[i*triSize:]), binary.LittleEndian.Uint32(s.tris[i*triSize+4:])
		if int64(t) <= prev || t >= 1<<24 || int64(po) > postLen || i > 0 && po < s.postOff(i-1) {
			return nil, errCorrupt
		}
		prev = int64(t)
	}
	return s, nil
}

func (s *segment) pathID(i int) uint32 { return binary.LittleEndian.Uint32(s.byPath[i*4:]) }

// path returns the file's path; the bytes of the mapping, not a copy.
func (s *segment) path(id uint32) []byte {
	r := s.records[int(id)*recordSize:]
	po, pl := binary.LittleEndian.Uint32(r[32:]), binary.LittleEndian.Uint32(r[36:])&^flagBits
	return s.paths[po : po+pl]
}

// binary reports whether the file has a NUL byte in its first grep.ChunkSize bytes,
// which makes a search count it as binary unread.
func (s *segment) binary(id uint32) bool {
	return binary.LittleEndian.Uint32(s.records[int(id)*recordSize+36:])&binaryFlag != 0
}

func (s *segment) flags(id uint32) uint32 {
	return binary.LittleEndian.Uint32(s.records[int(id)*recordSize+36:]) & flagBits
}

// leftToSearch reports whether the build did not read the file (racy, UTF-16, too
// large, unreadable): every search must.
func (s *segment) leftToSearch(id uint32) bool { return s.flags(id)&searchFlag != 0 }

// regular reports whether the entry is a regular file (not a link or a FIFO...).
func (s *segment) regular(id uint32) bool { return s.flags(id)&(linkFlag|otherFlag) == 0 }

// unchanged reports whether the entry's lstat st is what the build recorded.
func (s *segment) unchanged(id uint32, st *unix.Stat_t) bool {
	want := uint32(unix.S_IFREG)
	switch f := s.flags(id); {
	case f&linkFlag != 0:
		want = unix.S_IFLNK
	case f&otherFlag != 0:
		want = st.Mode & unix.S_IFMT
		if want == unix.S_IFREG || want == unix.S_IFLNK || want == unix.S_IFDIR {
			return false
		}
	}
	return st.Mode&unix.S_IFMT == want && recordOf(st) == s.record(id)
}

func (s *segment) record(id uint32) record {
	r := s.records[int(id)*recordSize:]
	return record{
		size:  int64(binary.LittleEndian.Uint64(r)),
		mtime: int64(binary.LittleEndian.Uint64(r[8:])),
		ctime: int64(binary.LittleEndian.Uint64(r[16:])),
		ino:   binary.LittleEndian.Uint64(r[24:]),
	}
}

// lookup finds the id of the file at rel (slash-separated, relative to the root).
func (s *segment) lookup(rel string) (uint32, bool) {
	// string(b) in a comparison does not copy.
	i := sort.Search(s.nfiles, func(i int) bool { return string(s.path(s.pathID(i))) >= rel })
	if i < s.nfiles && string(s.path(s.pathID(i))) == rel {
		return s.pathID(i), true
	}
	return 0, false
}

func (s *segment) postOff(i int) uint32 {
	return binary.LittleEndian.Uint32(s.tris[i*triSize+4:])
}

// posting returns the file ids holding trigram t; ok is false when the list is damaged
// (its checksum differs), and then nothing may be pruned by it.
func (s *segment) posting(t uint32) (ids []uint32, ok bool) {
	i := sort.Search(s.ntris, func(i int) bool { return binary.LittleEndian.Uint32(s.tris[i*triSize:]) >= t })
	if i >= s.ntris || binary.LittleEndian.Uint32(s.tris[i*triSize:]) != t {
		return nil, true
	}
	end := uint32(len(s.postings))
	if i+1 < s.ntris {
		end = s.postOff(i + 1)
	}
	b := s.postings[s.postOff(i):end]
	if crc32.Checksum(b, castagnoli()) != binary.LittleEndian.Uint32(s.tris[i*triSize+8:]) {
		return nil, false
	}
	id := uint64(0)
	for len(b) > 0 {
		gap, n := binary.Uvarint(b)
		id += gap
		if n <= 0 || id >= uint64(s.nfiles) || len(ids) > 0 && gap == 0 {
			return nil, false // not a list this code wrote: it prunes nothing
		}
		b = b[n:]
		ids = append(ids, uint32(id))
	}
	return ids, true
}

// candidates returns the files that hold every trigram of at least one of the
// literals, and those the build left to the search.
func (s *segment) candidates(lits [][]uint32) bitset {
	out := newBitset(s.nfiles)
	for id := range uint32(s.nfiles) {
		if s.leftToSearch(id) {
			out.set(id)
		}
	}
	for _, tris := range lits {
		var ids []uint32
		for i, t := range tris {
			p, ok := s.posting(t)
			if !ok {
				return allSet(s.nfiles) // a damaged list: this segment prunes nothing
			}
			if i == 0 {
				ids = p
			} else {
				ids = intersect(ids, p)
			}
			if len(ids) == 0 {
				break
			}
		}
		for _, id := range ids {
			out.set(id)
		}
	}
	return out
}

func intersect(a, b []uint32) []uint32 {
	out := a[:0:0]
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

// trigramsOf returns the distinct trigrams of a literal, ASCII case folded, ascending.
func trigramsOf(lit []byte) []uint32 {
	if len(lit) < 3 {
		return nil
	}
	var out []uint32
	for i := 0; i+3 <= len(lit); i++ {
		out = append(out, trigram(lit[i], lit[i+1], lit[i+2]))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func trigram(a, b, c byte) uint32 {
	return uint32(lower(a))<<16 | uint32(lower(b))<<8 | uint32(lower(c))
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

func allSet(n int) bitset {
	b := newBitset(n)
	for i := range b {
		b[i] = ^uint64(0)
	}
	return b
}

func (b bitset) set(i uint32)      { b[i/64] |= 1 << (i % 64) }
func (b bitset) has(i uint32) bool { return b[i/64]&(1<<(i%64)) != 0 }
func (b bitset) count() (n int) {
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	return n
}

type counter struct{ n atomic.Int64 }

func (c *counter) add()        { c.n.Add(1) }
func (c *counter) Load() int64 { return c.n.Load() }
