import { ToolOutlined } from '@ant-design/icons'
import { App, Button, Card, Empty, Space, Spin, Typography } from 'antd'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useNavigate, useSearchParams } from 'react-router-dom'
import { repairFromResult } from '../../../api/inspection/inspection'
import { inspectionKeys, recordDetailQuery } from '../../../api/inspection/queries'
import { ABNORMAL } from '../../../api/inspection/types'
import { Facts, PageBox, Thumbnails, VerdictTag } from '../common'
import { mayOpenRepair, repairPath, taskPath } from '../logic'

/**
 * `/intelligentOperation/inspectionRecord-detail?id=`: a filled inspection, its results and photos;
 * an abnormal result without an order opens one in one tap (生成维修工单), one with an order links it.
 */
export default function InspectionRecordDetailPage() {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const navigate = useNavigate()
  const client = useQueryClient()
  const id = useSearchParams()[0].get('id') ?? ''
  const record = useQuery({ ...recordDetailQuery(id), enabled: id !== '' })
  const [opening, setOpening] = useState<number | null>(null)

  if (id !== '' && record.isPending) return <Spin style={{ display: 'block', margin: 48 }} />
  const r = record.data
  if (!r) {
    return (
      <PageBox testId="inspection-record-detail">
        <Empty description={t('inspection.message.notFound')} />
      </PageBox>
    )
  }
  const openRepair = async (index: number) => {
    setOpening(index)
    try {
      const orderId = await repairFromResult(r, index)
      void message.success(t('inspection.message.repairCreated'))
      void client.invalidateQueries({ queryKey: inspectionKeys.records })
      void navigate(repairPath(orderId))
    } catch {
      // The request client has shown why.
    } finally {
      setOpening(null)
    }
  }

  return (
    <Space direction="vertical" size={12} style={{ width: '100%' }}>
      <PageBox testId="inspection-record-detail" title={r.planName}>
        <Facts
          testId="record-facts"
          rows={[
            [t('inspection.field.station'), r.stationName],
            [t('inspection.field.dueDate'), r.dueDate],
            [
              t('inspection.field.runSituation'),
              <span key="run">
                <VerdictTag code={r.runSituation} name={r.runSituationName} testId="record-run" />
              </span>,
            ],
            [t('inspection.field.abnormalCount'), String(r.abnormalCount)],
            [t('inspection.field.filledBy'), r.filledByName || '—'],
            [t('inspection.field.filledTime'), r.filledTime],
            [t('inspection.field.remark'), r.remark || '—'],
            [
              t('inspection.title.taskDetail'),
              <Link key="task" to={taskPath(r.taskId)}>
                {t('inspection.action.openTask')}
              </Link>,
            ],
          ]}
        />
      </PageBox>
      <PageBox testId="inspection-record-results" title={t('inspection.title.results')}>
        <Space direction="vertical" size={12} style={{ width: '100%' }}>
          {(r.results ?? []).map((res, index) => (
            <Card
              key={index}
              size="small"
              data-testid="record-result"
              data-result={res.result}
              data-index={index}
              style={res.result === ABNORMAL ? { borderColor: '#ff4d4f' } : undefined}
            >
              <Typography.Text type="secondary" style={{ display: 'block' }}>
                {res.itemTitle}
              </Typography.Text>
              <div style={{ display: 'flex', gap: 8, alignItems: 'flex-start', flexWrap: 'wrap' }}>
                <span style={{ flex: 1, minWidth: 0, fontSize: 15, overflowWrap: 'anywhere' }}>
                  {res.check}
                </span>
                <VerdictTag code={res.result} />
              </div>
              {res.note && (
                <Typography.Paragraph
                  style={{ margin: '6px 0 0', overflowWrap: 'anywhere' }}
                  data-testid="record-result-note"
                >
                  {res.note}
                </Typography.Paragraph>
              )}
              {res.photos.length > 0 && (
                <div style={{ marginTop: 8 }}>
                  <Thumbnails photos={res.photos} testId="record-result-photos" />
                </div>
              )}
              {res.repairId ? (
                <div style={{ marginTop: 8 }}>
                  <Link to={repairPath(res.repairId)} data-testid="record-result-repair-link">
                    <ToolOutlined /> {t('inspection.action.openRepair')}
                  </Link>
                </div>
              ) : (
                mayOpenRepair(res) && (
                  <Button
                    danger
                    block
                    size="large"
                    icon={<ToolOutlined />}
                    loading={opening === index}
                    disabled={opening !== null}
                    data-testid="record-result-repair"
                    style={{ marginTop: 10, minHeight: 44 }}
                    onClick={() => void openRepair(index)}
                  >
                    {t('inspection.action.createRepair')}
                  </Button>
                )
              )}
            </Card>
          ))}
        </Space>
      </PageBox>
    </Space>
  )
}
