import 'bpmn-js/dist/assets/diagram-js.css'
import 'bpmn-js/dist/assets/bpmn-js.css'
import 'bpmn-js/dist/assets/bpmn-font/css/bpmn-embedded.css'
import './flow.css'
import { Button, Form, Input, Modal, Space, Typography } from 'antd'
import BpmnModeler from 'bpmn-js/lib/Modeler'
import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { subsetModule } from './restrict'
import { editable, flowableModdle, peopleFields, type PeopleField } from './subset'

const text = (v: unknown): string => (typeof v === 'string' ? v : '')

/** The bits of bpmn-js's services the panel uses (bpmn-js types them loosely). */
interface BusinessObject {
  id: string
  name?: string
  $type: string
  get: (name: string) => unknown
  conditionExpression?: { body?: string }
  eventDefinitions?: { $type: string; timeDuration?: { body?: string } }[]
}
interface Shape {
  id: string
  type: string
  businessObject: BusinessObject
}
interface Modeling {
  updateProperties: (el: Shape, props: Record<string, unknown>) => void
  updateModdleProperties: (el: Shape, target: unknown, props: Record<string, unknown>) => void
}
interface Moddle {
  create: (type: string, attrs: Record<string, unknown>) => unknown
}
interface Canvas {
  getRootElement: () => Shape
  zoom: (level: string) => void
}

/**
 * The modeler dialog: bpmn-js offering only the subset's elements (`restrict.ts`), with a
 * properties panel limited to the subset (name; a user task's assignee and candidates; a flow's
 * condition; a timer's duration; the process id and name).
 * bpmn-js's project watermark stays visible, as its licence asks.
 */
export default function ModelerDialog({
  open,
  xml,
  saving,
  onCancel,
  onSave,
}: {
  open: boolean
  xml: string
  saving: boolean
  onCancel: () => void
  onSave: (xml: string, deploy: boolean) => void
}) {
  const { t } = useTranslation()
  // A callback ref: the dialog mounts its body after opening, so the effect waits for the node.
  const [box, setBox] = useState<HTMLDivElement | null>(null)
  const [modeler, setModeler] = useState<BpmnModeler | null>(null)
  const [selected, setSelected] = useState<Shape | null>(null)
  const [, setTick] = useState(0)
  useEffect(() => {
    if (!open || !box) return
    const m = new BpmnModeler({
      container: box,
      additionalModules: [subsetModule],
      moddleExtensions: { flowable: flowableModdle },
    })
    const canvas = m.get<Canvas>('canvas')
    // Nothing selected: the process itself (its id and name).
    m.on('selection.changed', (e: { newSelection: Shape[] }) =>
      setSelected(e.newSelection[0] ?? canvas.getRootElement()),
    )
    m.on('elements.changed', () => setTick((n) => n + 1))
    void m.importXML(xml).then(() => {
      canvas.zoom('fit-viewport')
      setSelected(canvas.getRootElement())
      setModeler(m)
    })
    return () => {
      setModeler(null)
      m.destroy()
    }
  }, [open, xml, box])

  const service = <T,>(name: string): T | null => (modeler ? modeler.get<T>(name) : null)
  const el = modeler ? selected : null
  const bo = el?.businessObject
  const timer = !!bo?.eventDefinitions?.some((d) => d.$type === 'bpmn:TimerEventDefinition')
  const can = editable(el?.type ?? '', timer)
  const update = (props: Record<string, unknown>) => {
    const modeling = service<Modeling>('modeling')
    if (el && modeling) modeling.updateProperties(el, props)
  }
  const expression = (body: string) =>
    body.trim()
      ? service<Moddle>('moddle')?.create('bpmn:FormalExpression', { body: body.trim() })
      : undefined
  const save = async (deploy: boolean) => {
    if (!modeler) return
    const { xml: out } = await modeler.saveXML({ format: true })
    if (out) onSave(out, deploy)
  }
  const peopleLabel: Record<PeopleField, string> = {
    assignee: t('flow.prop.assignee'),
    candidateUsers: t('flow.prop.candidateUsers'),
    candidateGroups: t('flow.prop.candidateGroups'),
    candidateDepts: t('flow.prop.candidateDepts'),
  }
  return (
    <Modal
      open={open}
      onCancel={onCancel}
      width="min(1280px, 100vw)"
      title={t('flow.modeler')}
      destroyOnHidden
      footer={
        <Space wrap>
          <Button onClick={onCancel}>{t('crud.cancel')}</Button>
          <Button loading={saving} onClick={() => void save(false)}>
            {t('flow.save')}
          </Button>
          <Button type="primary" loading={saving} onClick={() => void save(true)}>
            {t('flow.saveDeploy')}
          </Button>
        </Space>
      }
    >
      <div className="flow-modeler">
        <div ref={setBox} className="flow-canvas" data-testid="flow-modeler" />
        <div className="flow-props" data-testid="flow-props">
          {el && bo && (
            <Form layout="vertical" size="small" key={`${el.id}-${el.type}`}>
              <Typography.Text type="secondary">
                {el.type.replace('bpmn:', '')} · {bo.id}
              </Typography.Text>
              {el.type === 'bpmn:Process' && (
                <Form.Item label={t('flow.prop.key')} help={t('flow.prop.keyHelp')}>
                  <Input
                    defaultValue={bo.id}
                    onBlur={(e) => e.target.value && update({ id: e.target.value.trim() })}
                  />
                </Form.Item>
              )}
              <Form.Item label={t('flow.prop.name')}>
                <Input
                  aria-label={t('flow.prop.name')}
                  defaultValue={bo.name ?? ''}
                  onBlur={(e) => update({ name: e.target.value })}
                />
              </Form.Item>
              {can.people &&
                peopleFields.map((f) => (
                  <Form.Item key={f} label={peopleLabel[f]}>
                    <Input
                      aria-label={peopleLabel[f]}
                      data-testid={`prop-${f}`}
                      placeholder={f === 'assignee' ? '${manager} / 123' : '1,2 / ${managers}'}
                      defaultValue={text(bo.get(`flowable:${f}`))}
                      onBlur={(e) =>
                        update({ [`flowable:${f}`]: e.target.value.trim() || undefined })
                      }
                    />
                  </Form.Item>
                ))}
              {can.condition && (
                <Form.Item label={t('flow.prop.condition')} help={t('flow.prop.conditionHelp')}>
                  <Input
                    data-testid="prop-condition"
                    placeholder="${level >= 3}"
                    defaultValue={bo.conditionExpression?.body ?? ''}
                    onBlur={(e) => update({ conditionExpression: expression(e.target.value) })}
                  />
                </Form.Item>
              )}
              {can.duration && (
                <Form.Item label={t('flow.prop.duration')} help="PT30M, P1D">
                  <Input
                    data-testid="prop-duration"
                    defaultValue={bo.eventDefinitions?.[0]?.timeDuration?.body ?? ''}
                    onBlur={(e) => {
                      const modeling = service<Modeling>('modeling')
                      const def = bo.eventDefinitions?.[0]
                      if (el && modeling && def)
                        modeling.updateModdleProperties(el, def, {
                          timeDuration: expression(e.target.value),
                        })
                    }}
                  />
                </Form.Item>
              )}
              <Typography.Paragraph type="secondary" style={{ fontSize: 12 }}>
                {t('flow.subsetNote')}
              </Typography.Paragraph>
            </Form>
          )}
        </div>
      </div>
    </Modal>
  )
}
