/**
 * The fault catalogue: every fault scenario the e2e suite runs against the real controller, in
 * run order — the first captures (fault-scenarios.ts) and the controller-view faults of issue #21
 * (controller-view-faults.ts). The runner, the e2e test, the stored-capture test and the fidelity
 * bench all read this one list. Cost: none (a list).
 */
import { FAULT_SCENARIOS, type FaultScenario } from './fault-scenarios.js';
import { CONTROLLER_VIEW_SCENARIOS } from './controller-view-faults.js';

export const FAULT_CATALOGUE: FaultScenario[] = [...FAULT_SCENARIOS, ...CONTROLLER_VIEW_SCENARIOS];
