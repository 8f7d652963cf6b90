from citeline.cli import main

raise SystemExit(main())
