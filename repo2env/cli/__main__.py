from repo2env.cli import console_main

console_main()
