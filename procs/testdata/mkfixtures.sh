#!/bin/bash
# Builds the procs fixture trees. Shapes follow real /proc and /sys files
# (a systemd host with cgroup2, a Kubernetes node, Docker on cgroup v1, and
# this build machine's hybrid layout).
set -e
T=$(dirname "$0")/fixtures
rm -rf $T; mkdir -p $T
P=proc/4242
w() { mkdir -p "$(dirname "$1")"; printf '%b' "$2" > "$1"; }
status() { # dir name cpus_allowed(hex) list
  w $1/$P/status "Name:\t$2\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t4242\nNgid:\t0\nPid:\t4242\nPPid:\t1\nTracerPid:\t0\nUid:\t65532\t65532\t65532\t65532\nGid:\t65532\t65532\t65532\t65532\nThreads:\t9\nCpus_allowed:\t$3\nCpus_allowed_list:\t$4\nMems_allowed:\t00000001\nMems_allowed_list:\t0\nvoluntary_ctxt_switches:\t1523\nnonvoluntary_ctxt_switches:\t87\n"
}
environ() { # dir vars...
  local d=$1; shift; local s=""
  for v in "$@"; do s+="$v\0"; done
  w $d/$P/environ "$s"
}
online() { w $1/sys/devices/system/cpu/online "$2\n"; }
psi() { w $1 "some avg10=$2 avg60=$3 avg300=$4 total=$5\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"; }
v2stat() { # file usage_usec nr_periods nr_throttled throttled_usec
  w $1 "usage_usec $2\nuser_usec $(($2 * 7 / 8))\nsystem_usec $(($2 / 8))\nnice_usec 0\nnr_periods $3\nnr_throttled $4\nthrottled_usec $5\nnr_bursts 0\nburst_usec 0\n"
}
v2ctr() { # dir name cpus_allowed(hex) list online cpu.max memory.max: a container in its own cgroup namespace
  w $1/$P/mountinfo "$CTRMI"
  w $1/$P/cgroup "0::/\n"
  status $1 $2 $3 $4
  online $1 $5
  w $1/sys/fs/cgroup/cgroup.controllers "cpuset cpu io memory hugetlb pids rdma misc\n"
  w $1/sys/fs/cgroup/cpu.max "$6\n"
  w $1/sys/fs/cgroup/memory.max "$7\n"
}

HOSTMI="22 28 0:21 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw
23 28 0:22 / /proc rw,nosuid,nodev,noexec,relatime shared:13 - proc proc rw
24 28 0:5 / /dev rw,nosuid,relatime shared:2 - devtmpfs udev rw,size=16337152k,nr_inodes=4084288,mode=755,inode64
25 24 0:23 / /dev/pts rw,nosuid,noexec,relatime shared:3 - devpts devpts rw,gid=5,mode=620,ptmxmode=000
26 28 0:24 / /run rw,nosuid,nodev,noexec,relatime shared:5 - tmpfs tmpfs rw,size=3273436k,mode=755,inode64
28 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw,errors=remount-ro
29 22 0:6 / /sys/kernel/security rw,nosuid,nodev,noexec,relatime shared:8 - securityfs securityfs rw
30 22 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot
31 22 0:27 / /sys/fs/pstore rw,nosuid,nodev,noexec,relatime shared:10 - pstore pstore rw
"
CTRMI="1205 1187 0:289 / / rw,relatime master:480 - overlay overlay rw,lowerdir=/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs/snapshots/93/fs,upperdir=/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs/snapshots/94/fs,workdir=/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs/snapshots/94/work
1206 1205 0:292 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw
1207 1205 0:293 / /dev rw,nosuid - tmpfs tmpfs rw,size=65536k,mode=755,inode64
1208 1207 0:294 / /dev/pts rw,nosuid,noexec,relatime - devpts devpts rw,gid=5,mode=620,ptmxmode=666
1210 1207 0:288 / /dev/mqueue rw,nosuid,nodev,noexec,relatime - mqueue mqueue rw
1211 1205 0:295 / /sys ro,nosuid,nodev,noexec,relatime - sysfs sysfs ro
1212 1211 0:26 / /sys/fs/cgroup ro,nosuid,nodev,noexec,relatime - cgroup2 cgroup rw,nsdelegate,memory_recursiveprot
1213 1205 259:2 /var/lib/kubelet/pods/6f1c2a1e-9b7d-4e0b-8d55-0c9f3b1a7e42/etc-hosts /etc/hosts rw,relatime - ext4 /dev/nvme0n1p2 rw,errors=remount-ro
1214 1207 0:287 / /dev/shm rw,nosuid,nodev,noexec,relatime - tmpfs shm rw,size=65536k,inode64
"

# 1. bare-host: a systemd host on cgroup2, a service with no limits, Go 1.26.
d=$T/bare-host
w $d/$P/mountinfo "$HOSTMI"
w $d/$P/cgroup "0::/system.slice/api.service\n"
status $d api ff 0-7
environ $d PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin LANG=C.UTF-8 INVOCATION_ID=5c1f0e6b2b8e4a0f9d3a5e1c7b2d4f60
online $d 0-7
cg=$d/sys/fs/cgroup
w $cg/cgroup.controllers "cpuset cpu io memory hugetlb pids rdma misc\n"
w $cg/cpuset.cpus.effective "0-7\n"
w $cg/cpu.stat "usage_usec 912837465\nuser_usec 701234567\nsystem_usec 211602898\nnice_usec 0\ncore_sched.force_idle_usec 0\n"
psi $cg/cpu.pressure 0.00 0.12 0.31 48211923
w $cg/system.slice/cpu.max "max 100000\n"
w $cg/system.slice/api.service/cpu.max "max 100000\n"
v2stat $cg/system.slice/api.service/cpu.stat 48211920 0 0 0
psi $cg/system.slice/api.service/cpu.pressure 0.00 0.04 0.02 1022811
w $cg/system.slice/api.service/memory.max "max\n"
w $cg/system.slice/memory.max "max\n"

# 2. v1-quota: Docker on cgroup v1, --cpus=2 -m 512m, a Go 1.24 binary (go 1.24).
d=$T/v1-quota
ID=9d2c41f07e3b5a6c8e1f2d3c4b5a69788796a5b4c3d2e1f00112233445566778
w $d/$P/mountinfo "812 795 0:112 / / rw,relatime master:233 - overlay overlay rw,lowerdir=/var/lib/docker/overlay2/l/QZ3B:/var/lib/docker/overlay2/l/R2XK,upperdir=/var/lib/docker/overlay2/5e1f/diff,workdir=/var/lib/docker/overlay2/5e1f/work
813 812 0:115 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw
814 812 0:116 / /dev rw,nosuid - tmpfs tmpfs rw,size=65536k,mode=755
818 812 0:120 / /sys ro,nosuid,nodev,noexec,relatime - sysfs sysfs ro
819 818 0:121 / /sys/fs/cgroup ro,nosuid,nodev,noexec,relatime - tmpfs tmpfs rw,mode=755
820 819 0:30 /docker/$ID /sys/fs/cgroup/systemd ro,nosuid,nodev,noexec,relatime master:11 - cgroup cgroup rw,xattr,name=systemd
821 819 0:33 /docker/$ID /sys/fs/cgroup/cpu,cpuacct ro,nosuid,nodev,noexec,relatime master:16 - cgroup cgroup rw,cpu,cpuacct
822 819 0:34 /docker/$ID /sys/fs/cgroup/cpuset ro,nosuid,nodev,noexec,relatime master:17 - cgroup cgroup rw,cpuset
823 819 0:35 /docker/$ID /sys/fs/cgroup/memory ro,nosuid,nodev,noexec,relatime master:18 - cgroup cgroup rw,memory
824 819 0:36 /docker/$ID /sys/fs/cgroup/pids ro,nosuid,nodev,noexec,relatime master:19 - cgroup cgroup rw,pids
"
w $d/$P/cgroup "12:pids:/docker/$ID\n11:memory:/docker/$ID\n7:cpuset:/docker/$ID\n4:cpu,cpuacct:/docker/$ID\n1:name=systemd:/docker/$ID\n"
status $d server ff 0-7
environ $d PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOSTNAME=9d2c41f07e3b HOME=/root
online $d 0-7
cg=$d/sys/fs/cgroup
w $cg/cpu,cpuacct/cpu.cfs_quota_us "200000\n"
w $cg/cpu,cpuacct/cpu.cfs_period_us "100000\n"
w $cg/cpu,cpuacct/cpu.shares "1024\n"
w $cg/cpu,cpuacct/cpu.stat "nr_periods 3120\nnr_throttled 12\nthrottled_time 410233117\n"
w $cg/cpuset/cpuset.effective_cpus "0-7\n"
w $cg/cpuset/cpuset.cpus "0-7\n"
w $cg/memory/memory.limit_in_bytes "536870912\n"

# 3. v2-quota: a Kubernetes container (cgroup namespace) with limits.cpu 1500m,
# a Go 1.26 binary and GOMEMLIMIT set: healthy.
d=$T/v2-quota
v2ctr $d server ff 0-7 0-7 "150000 100000" 1073741824
environ $d PATH=/usr/local/bin:/usr/bin:/bin HOSTNAME=api-7c9d5b8f6-x2k4q GOMEMLIMIT=920MiB KUBERNETES_SERVICE_HOST=10.96.0.1
cg=$d/sys/fs/cgroup
v2stat $cg/cpu.stat 733912004 41210 187 2411876
psi $cg/cpu.pressure 0.31 0.44 0.40 3912005
w $cg/cpuset.cpus.effective "0-7\n"

# 4. v2-nested: seen from the node (no cgroup namespace): the pod's slice is
# limited to 1 CPU (pod-level resources), the container to nothing; Go 1.26.
d=$T/v2-nested
POD=kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod6f1c2a1e_9b7d_4e0b_8d55_0c9f3b1a7e42.slice
CTR=cri-containerd-3f2a9c1d7e5b4a60b8c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0.scope
w $d/$P/mountinfo "$HOSTMI"
w $d/$P/cgroup "0::/$POD/$CTR\n"
status $d worker f 0-3
environ $d PATH=/usr/local/bin:/usr/bin:/bin HOSTNAME=worker-5b7f9c6d8-9qz2m GOMEMLIMIT=900MiB
online $d 0-3
cg=$d/sys/fs/cgroup
w $cg/cgroup.controllers "cpuset cpu io memory hugetlb pids rdma misc\n"
w $cg/cpuset.cpus.effective "0-3\n"
psi $cg/cpu.pressure 1.02 0.88 0.91 99120551
w $cg/kubepods.slice/cpu.max "max 100000\n"
w $cg/kubepods.slice/kubepods-burstable.slice/cpu.max "max 100000\n"
w $cg/$POD/cpu.max "100000 100000\n"
v2stat $cg/$POD/cpu.stat 402119876 9811 1904 171442009
w $cg/$POD/$CTR/cpu.max "max 100000\n"
v2stat $cg/$POD/$CTR/cpu.stat 401998120 0 0 0
psi $cg/$POD/$CTR/cpu.pressure 2.10 3.05 2.77 88120554
w $cg/$POD/$CTR/memory.max "1073741824\n"

# 5. cpuset-only: docker run --cpuset-cpus=2-3 on a 16-CPU host, cgroup2, no
# quota; a Go 1.22 binary: the affinity count is right, the runtime is old.
d=$T/cpuset-only
v2ctr $d ingest c 2-3 0-15 "max 100000" 4294967296
environ $d PATH=/usr/local/bin:/usr/bin:/bin HOSTNAME=4b1e77a09c2d GOMEMLIMIT=3GiB
cg=$d/sys/fs/cgroup
v2stat $cg/cpu.stat 81233009 0 0 0
w $cg/cpuset.cpus "2-3\n"
w $cg/cpuset.cpus.effective "2-3\n"
psi $cg/cpu.pressure 0.00 0.00 0.00 10442

# 6. no-limit: a container with no CPU or memory limit on 4 CPUs, but
# GOMAXPROCS=1 in its environment (a leftover from a benchmark).
d=$T/no-limit
v2ctr $d api f 0-3 0-3 "max 100000" max
environ $d PATH=/usr/local/bin:/usr/bin:/bin HOSTNAME=api-6d4f8b7c9-7jw2x GOMAXPROCS=1
cg=$d/sys/fs/cgroup
v2stat $cg/cpu.stat 9120331 0 0 0
w $cg/cpuset.cpus.effective "0-3\n"
psi $cg/cpu.pressure 0.00 0.02 0.01 22013

# 7. throttled: limits.cpu 2500m, a Go 1.24 binary that links automaxprocs
# (GOMAXPROCS 2), heavily throttled, CPU pressure high.
d=$T/throttled
v2ctr $d checkout ff 0-7 0-7 "250000 100000" 2147483648
environ $d PATH=/usr/local/bin:/usr/bin:/bin HOSTNAME=checkout-77b9d8c5f-ph4rt GOMEMLIMIT=1800MiB
cg=$d/sys/fs/cgroup
v2stat $cg/cpu.stat 9912004511 52000 13400 402118776
psi $cg/cpu.pressure 41.22 35.10 28.90 1801224567
w $cg/cpuset.cpus.effective "0-7\n"

# 8. hybrid: this build machine's layout (cgroup v1 controllers plus the
# unified hierarchy at /sys/fs/cgroup/unified), a container limited to
# 1 CPU in v1, a Go 1.25 binary: the runtime's minimum of 2 applies.
d=$T/hybrid
w $d/$P/mountinfo "22 27 0:21 / /proc rw,relatime - proc proc rw
23 27 0:22 / /sys rw,relatime - sysfs sysfs rw
24 27 0:6 / /dev rw,relatime - devtmpfs devtmpfs rw,size=12334524k,nr_inodes=3083631,mode=755
27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct
34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
36 31 0:33 / /sys/fs/cgroup/devices rw,relatime - cgroup cgroup rw,devices
37 31 0:34 / /sys/fs/cgroup/freezer rw,relatime - cgroup cgroup rw,freezer
38 31 0:35 / /sys/fs/cgroup/blkio rw,relatime - cgroup cgroup rw,blkio
39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
"
w $d/$P/cgroup "9:name=systemd:/\n8:pids:/\n7:blkio:/\n6:freezer:/\n5:devices:/\n4:memory:/process_api/1750697f7be8ecf9a1c3486a3e1610f8\n3:cpuset:/\n2:cpuacct:/\n1:cpu:/process_api/1750697f7be8ecf9a1c3486a3e1610f8\n0::/process_api/1750697f7be8ecf9a1c3486a3e1610f8\n"
status $d sandbox 3 0-1
environ $d PATH=/usr/local/go/bin:/usr/bin:/bin HOME=/root
online $d 0-1
cg=$d/sys/fs/cgroup
w $cg/cpu/cpu.cfs_quota_us "-1\n"
w $cg/cpu/cpu.cfs_period_us "100000\n"
w $cg/cpu/cpu.stat "nr_periods 0\nnr_throttled 0\nthrottled_time 0\nnr_bursts 0\nburst_time 0\n"
w $cg/cpu/process_api/cpu.cfs_quota_us "-1\n"
w $cg/cpu/process_api/cpu.cfs_period_us "100000\n"
w $cg/cpu/process_api/1750697f7be8ecf9a1c3486a3e1610f8/cpu.cfs_quota_us "100000\n"
w $cg/cpu/process_api/1750697f7be8ecf9a1c3486a3e1610f8/cpu.cfs_period_us "100000\n"
w $cg/cpu/process_api/1750697f7be8ecf9a1c3486a3e1610f8/cpu.stat "nr_periods 880\nnr_throttled 3\nthrottled_time 21000117\nnr_bursts 0\nburst_time 0\n"
w $cg/cpuset/cpuset.effective_cpus "0-1\n"
w $cg/memory/memory.limit_in_bytes "9223372036854771712\n"
w $cg/memory/process_api/1750697f7be8ecf9a1c3486a3e1610f8/memory.limit_in_bytes "2147483648\n"
w $cg/unified/cgroup.controllers "hugetlb\n"
psi $cg/unified/cpu.pressure 2.97 12.43 11.83 60780277
psi $cg/unified/process_api/1750697f7be8ecf9a1c3486a3e1610f8/cpu.pressure 0.50 0.70 0.60 120331

# 9. malformed: a malformed cpu.max at the leaf, a cpu.stat with a broken
# line, an environ that cannot be read, an executable that is not Go. The
# parent's limit, the affinity and the cpuset are still analysed.
d=$T/malformed
w $d/$P/mountinfo "$HOSTMI"
w $d/$P/cgroup "0::/machine.slice/vm1.scope\n"
status $d qemu-system-x86 ff 0-7
mkdir -p $d/$P/environ   # a directory: reading it fails
w $d/$P/environ/.keep ""
w $d/$P/exe "#!/bin/sh\nexec /usr/bin/qemu-system-x86_64 \"\$@\"\n"
online $d 0-7
cg=$d/sys/fs/cgroup
w $cg/cpuset.cpus.effective "0-7\n"
w $cg/machine.slice/cpu.max "400000 100000\n"
w $cg/machine.slice/vm1.scope/cpu.max "150000\n"
w $cg/machine.slice/vm1.scope/cpu.stat "usage_usec 1200\nnr_periods twelve\n"
w $cg/machine.slice/vm1.scope/memory.max "lots\n"

# 10. no-cgroup-mount: /proc/PID/cgroup names a v2 cgroup but mountinfo has
# no cgroup2 mount (a chroot without /sys/fs/cgroup): CPUs only.
d=$T/no-cgroup-mount
w $d/$P/mountinfo "$(printf '%s\n' "$HOSTMI" | grep -v cgroup2)
"
w $d/$P/cgroup "0::/system.slice/batch.service\n"
status $d batch 3 0-1
environ $d PATH=/usr/bin:/bin GOMAXPROCS=4
online $d 0-1

# 11. host-pressure: Docker on cgroup v1 (no PSI in any cgroup), no limits,
# a Go 1.26 binary, on a host whose /proc/pressure/cpu says 42% while the
# process's own threads never waited (schedstat field 2 is 0): the host's
# pressure is context, not SD406.
d=$T/host-pressure
ID=4f0a9e2d7c6b5a4938271605f4e3d2c1b0a99887766554433221100ffeeddccb
w $d/$P/mountinfo "812 795 0:112 / / rw,relatime master:233 - overlay overlay rw,lowerdir=/var/lib/docker/overlay2/l/QZ3B,upperdir=/var/lib/docker/overlay2/7a2c/diff,workdir=/var/lib/docker/overlay2/7a2c/work
813 812 0:115 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw
818 812 0:120 / /sys ro,nosuid,nodev,noexec,relatime - sysfs sysfs ro
819 818 0:121 / /sys/fs/cgroup ro,nosuid,nodev,noexec,relatime - tmpfs tmpfs rw,mode=755
821 819 0:33 /docker/$ID /sys/fs/cgroup/cpu,cpuacct ro,nosuid,nodev,noexec,relatime master:16 - cgroup cgroup rw,cpu,cpuacct
822 819 0:34 /docker/$ID /sys/fs/cgroup/cpuset ro,nosuid,nodev,noexec,relatime master:17 - cgroup cgroup rw,cpuset
823 819 0:35 /docker/$ID /sys/fs/cgroup/memory ro,nosuid,nodev,noexec,relatime master:18 - cgroup cgroup rw,memory
"
w $d/$P/cgroup "11:memory:/docker/$ID\n7:cpuset:/docker/$ID\n4:cpu,cpuacct:/docker/$ID\n"
status $d broker 3 0-1
environ $d PATH=/usr/local/bin:/usr/bin:/bin HOME=/root
online $d 0-1
w $d/$P/task/4242/schedstat "1520331221 0 8123\n"
w $d/$P/task/4250/schedstat "212004118 0 1907\n"
w $d/$P/task/4251/schedstat "98120551 0 655\n"
psi $d/proc/pressure/cpu 38.10 42.50 40.02 902211873
cg=$d/sys/fs/cgroup
w $cg/cpu,cpuacct/cpu.cfs_quota_us "-1\n"
w $cg/cpu,cpuacct/cpu.cfs_period_us "100000\n"
w $cg/cpu,cpuacct/cpu.stat "nr_periods 0\nnr_throttled 0\nthrottled_time 0\n"
w $cg/cpuset/cpuset.effective_cpus "0-1\n"
w $cg/memory/memory.limit_in_bytes "9223372036854771712\n"

# 12. own-pressure: a Kubernetes container (cgroup namespace) limited to
# 2 CPUs on a 4-CPU node, its own cgroup's cpu.pressure at 28% and its
# threads waiting 1.6 s against 4.0 s on a CPU in 5239 timeslices (305 µs
# of wait per timeslice: behind other threads' runs, not a wake-up's
# latency): SD406 on its own figures.
d=$T/own-pressure
v2ctr $d matcher f 0-3 0-3 "200000 100000" max
environ $d PATH=/usr/bin:/bin
v2stat $d/sys/fs/cgroup/cpu.stat 5600000 5600 0 0
psi $d/sys/fs/cgroup/cpu.pressure 31.02 28.40 20.11 1590331221
psi $d/proc/pressure/cpu 30.00 27.70 19.90 4590331221
w $d/$P/task/4242/schedstat "2400000000 1000000000 3021\n"
w $d/$P/task/4247/schedstat "1600000000 600000000 2218\n"
