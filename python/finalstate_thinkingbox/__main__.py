from finalstate_thinkingbox.sidecar import main

main()
