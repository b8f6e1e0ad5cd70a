package fuse

import (
	"context"
	"syscall"

	fusefs "github.com/hanwen/go-fuse/v2/fs"
	gofuse "github.com/hanwen/go-fuse/v2/fuse"
)

// Everything that would change the tree fails with EROFS. Mode bits alone
// do not stop root, so each operation refuses explicitly.

var (
	_ = (fusefs.NodeSetattrer)((*dirNode)(nil))
	_ = (fusefs.NodeCreater)((*dirNode)(nil))
	_ = (fusefs.NodeMkdirer)((*dirNode)(nil))
	_ = (fusefs.NodeMknoder)((*dirNode)(nil))
	_ = (fusefs.NodeLinker)((*dirNode)(nil))
	_ = (fusefs.NodeSymlinker)((*dirNode)(nil))
	_ = (fusefs.NodeUnlinker)((*dirNode)(nil))
	_ = (fusefs.NodeRmdirer)((*dirNode)(nil))
	_ = (fusefs.NodeRenamer)((*dirNode)(nil))
	_ = (fusefs.NodeSetxattrer)((*dirNode)(nil))
	_ = (fusefs.NodeRemovexattrer)((*dirNode)(nil))

	_ = (fusefs.NodeSetattrer)((*fileNode)(nil))
	_ = (fusefs.NodeWriter)((*fileNode)(nil))
	_ = (fusefs.NodeAllocater)((*fileNode)(nil))
	_ = (fusefs.NodeCopyFileRanger)((*fileNode)(nil))
	_ = (fusefs.NodeSetxattrer)((*fileNode)(nil))
	_ = (fusefs.NodeRemovexattrer)((*fileNode)(nil))
)

// Setattr refuses chmod, chown, utimes and truncate.
func (d *dirNode) Setattr(context.Context, fusefs.FileHandle, *gofuse.SetAttrIn, *gofuse.AttrOut) syscall.Errno {
	return syscall.EROFS
}

// Create refuses new files (skills/ holds only folders: EPERM).
func (d *dirNode) Create(context.Context, string, uint32, uint32, *gofuse.EntryOut) (*fusefs.Inode, fusefs.FileHandle, uint32, syscall.Errno) {
	if d.writableSkills() {
		return nil, nil, 0, syscall.EPERM
	}
	return nil, nil, 0, syscall.EROFS
}

// Mkdir refuses new directories, except a new skill folder in skills/.
func (d *dirNode) Mkdir(ctx context.Context, name string, mode uint32, out *gofuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	if d.writableSkills() {
		return d.m.mkdirSkill(ctx, &d.Inode, name, out)
	}
	return nil, syscall.EROFS
}

// Mknod refuses device nodes, fifos and sockets.
func (d *dirNode) Mknod(context.Context, string, uint32, uint32, *gofuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	return nil, syscall.EROFS
}

// Link refuses hard links.
func (d *dirNode) Link(context.Context, fusefs.InodeEmbedder, string, *gofuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	return nil, syscall.EROFS
}

// Symlink refuses symbolic links.
func (d *dirNode) Symlink(context.Context, string, string, *gofuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	return nil, syscall.EROFS
}

// Unlink refuses removing files.
func (d *dirNode) Unlink(context.Context, string) syscall.Errno { return syscall.EROFS }

// Rmdir refuses removing directories, except an empty skill folder in
// skills/, which removes the skill.
func (d *dirNode) Rmdir(ctx context.Context, name string) syscall.Errno {
	if d.writableSkills() {
		return d.m.rmdirSkill(ctx, name)
	}
	return syscall.EROFS
}

// Rename refuses renames, except of a folder in skills/ onto another name
// there, which saves the folder as that skill.
func (d *dirNode) Rename(ctx context.Context, name string, newParent fusefs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	if !d.writableSkills() {
		return syscall.EROFS
	}
	if newParent.EmbeddedInode() != &d.Inode || flags != 0 {
		return syscall.EXDEV
	}
	return d.m.renameSkill(ctx, name, newName)
}

// Setxattr refuses extended attributes.
func (d *dirNode) Setxattr(context.Context, string, []byte, uint32) syscall.Errno {
	return syscall.EROFS
}

// Removexattr refuses extended attributes.
func (d *dirNode) Removexattr(context.Context, string) syscall.Errno { return syscall.EROFS }

// Setattr refuses chmod, chown, utimes and truncate.
func (f *fileNode) Setattr(context.Context, fusefs.FileHandle, *gofuse.SetAttrIn, *gofuse.AttrOut) syscall.Errno {
	return syscall.EROFS
}

// Write refuses writes (Open already refuses write modes).
func (f *fileNode) Write(context.Context, fusefs.FileHandle, []byte, int64) (uint32, syscall.Errno) {
	return 0, syscall.EROFS
}

// Allocate refuses fallocate.
func (f *fileNode) Allocate(context.Context, fusefs.FileHandle, uint64, uint64, uint32) syscall.Errno {
	return syscall.EROFS
}

// CopyFileRange refuses copying into the file.
func (f *fileNode) CopyFileRange(context.Context, fusefs.FileHandle, uint64, *fusefs.Inode, fusefs.FileHandle, uint64, uint64, uint64) (uint32, syscall.Errno) {
	return 0, syscall.EROFS
}

// Setxattr refuses extended attributes.
func (f *fileNode) Setxattr(context.Context, string, []byte, uint32) syscall.Errno {
	return syscall.EROFS
}

// Removexattr refuses extended attributes.
func (f *fileNode) Removexattr(context.Context, string) syscall.Errno { return syscall.EROFS }
