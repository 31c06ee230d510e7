"""An MCP server that will not stop by itself, for the proxy's shutdown tests.

Run as a script, it is a wrapper, as ``npx`` or a shell script is: it starts the real server
(the test upstream's tools on stdio) as a child sharing its stdin and stdout, and exits once
its stdin closes (the child tells it so). The child ignores SIGTERM and SIGINT, and keeps
running after its stdin closes. Both pids are written, one a line, to the file named by
``STUBBORN_PIDS``. Only SIGKILL ends the child. Once the child has decided whether to signal
its wrapper (at the end of input), it creates the file named by ``STUBBORN_DECIDED``, if set:
a test of that decision waits for the file, not for a guessed number of seconds.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def serve() -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    wrapper = os.getppid()
    sys.path.insert(0, HERE)
    from upstream_server import main

    main()
    # The wrapper leaves at the end of input; if it died first, this process now belongs to
    # the nearest child subreaper (the test worker), which must not get the signal.
    if os.getppid() == wrapper:
        os.kill(wrapper, signal.SIGTERM)
    if decided := os.environ.get("STUBBORN_DECIDED"):
        open(decided, "w").close()  # after the signal, if any: it is pending by now
    while True:  # this server carries on regardless
        time.sleep(3600)


if __name__ == "__main__":
    if sys.argv[1:] == ["--serve"]:
        serve()
    else:
        child = subprocess.Popen([sys.executable, __file__, "--serve"])
        with open(os.environ["STUBBORN_PIDS"], "w") as out:
            out.write(f"{os.getpid()}\n{child.pid}\n")
        child.wait()
