import { createInProcessBus } from '../src/in-process-bus';
import { busContract } from './bus.contract';

busContract('in-process', async () => {
  const bus = createInProcessBus();
  return { bus, cleanup: () => bus.close() };
});
