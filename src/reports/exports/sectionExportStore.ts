import { createActor } from 'xstate';
import { EXPORT_READY_MESSAGE } from '../../../machines/sectionExport/messages';
import { sectionExportActors } from '../../../machines/sectionExport/sectionExportActors';
import { sectionExportMachine, type SectionExportActorRef } from '../../../machines/sectionExport/sectionExportMachine';
import type { SectionExportNotice } from '../../../machines/sectionExport/types';
import type { ApiClient } from '../../api/client';
import type { LiveChannels } from '../../cable/liveChannels';
import { inspectorRegistry, type InspectorRegistry } from '../../inspector/registry';
import { toastExportComplete, toastExportStarted, toastExportStartFailure } from '../../notifications/toast';
import { createSectionExportServices } from './sectionExportApi';

/**
 * The details export runs longer than the menu that started it is open (and may outlive the
 * page: its notification comes wherever the user is), so its machine is not a view's: there is
 * one per signed-in user and set of live channels, created on first use, registered with the
 * state inspector as 'sectionExport' (its trace stays there). Another user signing in gets a
 * machine of their own; the previous one is stopped.
 */

/** The toasts the machine asks for (spec: started 5 s, start failure 30 s, complete with Download and no timeout). */
export function showExportNotice(notice: SectionExportNotice): void {
  if (notice.kind === 'started') toastExportStarted();
  else if (notice.kind === 'failed') toastExportStartFailure();
  else toastExportComplete(notice.fileName ? `${EXPORT_READY_MESSAGE}: ${notice.fileName}` : EXPORT_READY_MESSAGE, notice.url);
}

interface Entry {
  userId: string;
  client: ApiClient;
  actor: SectionExportActorRef;
  stopTracking: () => void;
}

const machines = new WeakMap<LiveChannels, Entry>();
const started = new WeakSet<SectionExportActorRef>();

/**
 * The export machine of this user over these channels and this client. Created not started
 * (a view may ask while rendering); `startSectionExportActor` starts it (from an effect).
 */
export function sectionExportActorFor(client: ApiClient, channels: LiveChannels, userId: string, registry: InspectorRegistry = inspectorRegistry): SectionExportActorRef {
  const found = machines.get(channels);
  if (found && found.userId === userId && found.client === client) return found.actor;
  if (found) {
    found.actor.stop();
    found.stopTracking();
  }
  const tracker = registry.track('sectionExport');
  const logic = sectionExportMachine.provide({
    actors: sectionExportActors(createSectionExportServices(client, channels)),
    actions: { notify: (_, notice) => showExportNotice(notice) },
  });
  const actor = createActor(logic, { inspect: tracker.inspect });
  machines.set(channels, { userId, client, actor, stopTracking: tracker.stop });
  return actor;
}

/** Starts the machine once (again: nothing happens). */
export function startSectionExportActor(actor: SectionExportActorRef): void {
  if (started.has(actor)) return;
  started.add(actor);
  actor.start();
}
