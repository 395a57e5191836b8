#!/bin/sh
printf '#!/bin/sh\necho approve\n' > $H
