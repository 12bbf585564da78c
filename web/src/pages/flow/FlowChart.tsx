import 'bpmn-js/dist/assets/diagram-js.css'
import 'bpmn-js/dist/assets/bpmn-js.css'
import 'bpmn-js/dist/assets/bpmn-font/css/bpmn-embedded.css'
import './flow.css'
import { Modal, Spin, Table, Tag } from 'antd'
import NavigatedViewer from 'bpmn-js/lib/NavigatedViewer'
import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { fetchHistory, fetchModelView, markings, type HistoryFlow } from '../../api/flow/flow'

interface Canvas {
  addMarker: (id: string, marker: string) => void
  zoom: (level: string) => void
}

/** The "flow chart display": the diagram with what ran marked, and the history under it. */
export default function FlowChart({
  open,
  onClose,
  processInstanceId,
  processDefinitionId,
}: {
  open: boolean
  onClose: () => void
  processInstanceId?: string
  processDefinitionId?: string
}) {
  const { t } = useTranslation()
  // A callback ref: the dialog mounts its body after opening, so the effect waits for the node.
  const [box, setBox] = useState<HTMLDivElement | null>(null)
  const [loading, setLoading] = useState(false)
  const [history, setHistory] = useState<HistoryFlow[]>([])
  useEffect(() => {
    if (!open || !box) return
    const viewer = new NavigatedViewer({ container: box })
    let gone = false
    void (async () => {
      setLoading(true)
      try {
        const view = await fetchModelView({ processInstanceId, processDefinitionId })
        if (gone) return
        await viewer.importXML(view.xml)
        const canvas = viewer.get<Canvas>('canvas')
        canvas.zoom('fit-viewport')
        const m = markings(view.flow)
        for (const id of m.done) canvas.addMarker(id, 'flow-done')
        for (const id of m.active) canvas.addMarker(id, 'flow-active')
        for (const id of m.flows) canvas.addMarker(id, 'flow-taken')
        if (processInstanceId) setHistory(await fetchHistory(processInstanceId))
      } catch {
        // The request client has shown why.
      } finally {
        if (!gone) setLoading(false)
      }
    })()
    return () => {
      gone = true
      viewer.destroy()
    }
  }, [open, processInstanceId, processDefinitionId, box])
  return (
    <Modal
      open={open}
      onCancel={onClose}
      footer={null}
      width="min(1000px, 100vw)"
      title={t('flow.chart')}
      destroyOnHidden
    >
      <Spin spinning={loading}>
        <div ref={setBox} className="flow-canvas" data-testid="flow-chart" />
      </Spin>
      <div style={{ marginTop: 8 }}>
        <Tag color="success">{t('flow.legend.done')}</Tag>
        <Tag color="processing">{t('flow.legend.active')}</Tag>
        <Tag color="warning">{t('flow.legend.flow')}</Tag>
      </div>
      {processInstanceId && (
        <Table<HistoryFlow>
          size="small"
          style={{ marginTop: 8 }}
          rowKey={(r) => `${r.historyActivityId}-${r.createTime}`}
          dataSource={history}
          pagination={false}
          scroll={{ x: true }}
          columns={[
            {
              title: t('flow.field.node'),
              dataIndex: 'historyActivityName',
              render: (v: string, r) => v || r.historyActivityId,
            },
            { title: t('flow.field.assignee'), dataIndex: 'assigneeName' },
            { title: t('flow.field.comment'), dataIndex: 'comment' },
            {
              title: t('flow.field.endTime'),
              dataIndex: 'endTime',
              render: (v: string | null) => v ?? t('flow.legend.active'),
            },
          ]}
        />
      )}
    </Modal>
  )
}
