// A runtime module that cannot load: the adapter must say so in the handshake.
'use strict';
throw new Error('this runtime fails while loading');
