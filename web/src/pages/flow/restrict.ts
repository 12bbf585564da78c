/**
 * A bpmn-js module that offers only what the hub runs (docs/workflow.md): the palette, the
 * context pad and the replace menu lose every element outside the subset, and the generic task
 * bpmn-js creates is a user task here. Without it a user could draw a service task or a
 * sub-process and learn only at deploy that it is refused.
 *
 * Each provider registers with a low priority so it runs after bpmn-js's own and edits their
 * entries (diagram-js calls a provider's function result with the entries gathered so far).
 */

type Entries = Record<string, unknown>
type Action = (event: Event, element?: unknown) => void
interface Entry {
  group: string
  className: string
  title: string
  action: { click: Action; dragstart: Action }
}
interface ElementFactory {
  createShape: (attrs: Record<string, unknown>) => unknown
}
interface Create {
  start: (event: Event, shape: unknown, context?: Record<string, unknown>) => void
}
interface AutoPlace {
  append: (source: unknown, shape: unknown) => void
}
interface Translate {
  (text: string): string
}
interface Registry<P> {
  registerProvider: (priority: number, provider: P) => void
}
interface PopupMenu {
  registerProvider: (id: string, priority: number, provider: unknown) => void
}

/** Runs after bpmn-js's providers (priority 1000). */
const LAST = 1

/** Palette entries kept: the tools, the events, the gateways (tasks come as user tasks). */
export const paletteKept = new Set([
  'hand-tool',
  'lasso-tool',
  'space-tool',
  'global-connect-tool',
  'tool-separator',
  'create.start-event',
  'create.end-event',
  'create.exclusive-gateway',
])

/** Context pad entries kept; the generic "append task" becomes "append user task". */
export const contextKept = new Set([
  'append.end-event',
  'append.gateway',
  'append.text-annotation',
  'replace',
  'delete',
  'connect',
])

/** Replace menu entries kept (by bpmn-js's action names); its header (loops, multi-instance) goes. */
export const replaceKept = new Set([
  'replace-with-none-start',
  'replace-with-none-end',
  'replace-with-user-task',
  'replace-with-exclusive-gateway',
  'replace-with-parallel-gateway',
  'replace-with-timer-boundary',
  'replace-with-non-interrupting-timer-boundary',
  'replace-with-sequence-flow',
  'replace-with-default-flow',
  'replace-with-conditional-flow',
])

export const keepOnly = (entries: Entries, kept: Set<string>): Entries =>
  Object.fromEntries(Object.entries(entries).filter(([id]) => kept.has(id)))

function SubsetPalette(
  palette: Registry<unknown>,
  create: Create,
  elementFactory: ElementFactory,
  translate: Translate,
) {
  const entry = (type: string, group: string, className: string, title: string): Entry => {
    const start: Action = (event) => create.start(event, elementFactory.createShape({ type }))
    return { group, className, title, action: { click: start, dragstart: start } }
  }
  palette.registerProvider(LAST, {
    getPaletteEntries: () => (entries: Entries) => ({
      ...keepOnly(entries, paletteKept),
      'create.parallel-gateway': entry(
        'bpmn:ParallelGateway',
        'gateway',
        'bpmn-icon-gateway-parallel',
        translate('Create parallel gateway'),
      ),
      'create.user-task': entry(
        'bpmn:UserTask',
        'activity',
        'bpmn-icon-user-task',
        translate('Create user task'),
      ),
    }),
  })
}
SubsetPalette.$inject = ['palette', 'create', 'elementFactory', 'translate']

function SubsetContextPad(
  contextPad: Registry<unknown>,
  create: Create,
  elementFactory: ElementFactory,
  autoPlace: AutoPlace,
  translate: Translate,
) {
  contextPad.registerProvider(LAST, {
    getContextPadEntries: (element: unknown) => (entries: Entries) => {
      const kept = keepOnly(entries, contextKept)
      if (!('append.append-task' in entries)) return kept
      const shape = () => elementFactory.createShape({ type: 'bpmn:UserTask' })
      const userTask: Entry = {
        group: 'model',
        className: 'bpmn-icon-user-task',
        title: translate('Append user task'),
        action: {
          click: () => autoPlace.append(element, shape()),
          dragstart: (event) => create.start(event, shape(), { source: element }),
        },
      }
      return { ...kept, 'append.user-task': userTask }
    },
  })
}
SubsetContextPad.$inject = ['contextPad', 'create', 'elementFactory', 'autoPlace', 'translate']

function SubsetReplaceMenu(popupMenu: PopupMenu) {
  popupMenu.registerProvider('bpmn-replace', LAST, {
    getPopupMenuEntries: () => (entries: Entries) => keepOnly(entries, replaceKept),
    getPopupMenuHeaderEntries: () => () => ({}),
  })
}
SubsetReplaceMenu.$inject = ['popupMenu']

export const subsetModule = {
  __init__: ['subsetPalette', 'subsetContextPad', 'subsetReplaceMenu'],
  subsetPalette: ['type', SubsetPalette],
  subsetContextPad: ['type', SubsetContextPad],
  subsetReplaceMenu: ['type', SubsetReplaceMenu],
}
