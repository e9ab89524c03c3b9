import { InMemoryTaskStore } from '../../main/stores/memory.js';
import { describeTaskStoreContract } from './task-store-contract.js';

describeTaskStoreContract('InMemoryTaskStore', () => {
  const store = new InMemoryTaskStore();
  return { store, cleanup: () => store.close() };
});
