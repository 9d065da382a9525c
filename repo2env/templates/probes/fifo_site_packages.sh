# a grader that cannot finish: a FIFO (opening it blocks forever) and a huge sparse file in site-packages, where
# the environment check reads every file
site=$(python3 -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
mkfifo "$site/r2e_block.pth"
truncate -s 64G "$site/r2e_huge.so"
