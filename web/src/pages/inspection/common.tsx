/**
 * Pieces the inspection pages share: labels of the contract's codes, the delete flow (confirm, the
 * server's own 删除成功, the list reloaded), the export button (xlsx blob), photo thumbnails, and a
 * page box that keeps its content within the screen's width on phones.
 */
import { DeleteOutlined, DownloadOutlined } from '@ant-design/icons'
import { App, Button, Card, Image, Space, Tag } from 'antd'
import { useState, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { saveDownload, type Download } from '../../api/station/excel'
import { ABNORMAL } from '../../api/inspection/types'
import { usePhone } from './hooks'
import { verdictLabel } from './labels'

/** The page's own box: never wider than the screen; tables scroll inside it. */
export function PageBox({
  testId,
  title,
  extra,
  children,
}: {
  testId: string
  title?: ReactNode
  extra?: ReactNode
  children: ReactNode
}) {
  const phone = usePhone()
  return (
    <Card
      data-testid={testId}
      title={title}
      extra={extra}
      style={{ maxWidth: '100%', minWidth: 0, overflowX: 'clip' }}
      styles={{ body: phone ? { padding: 12 } : undefined }}
    >
      {children}
    </Card>
  )
}

export function VerdictTag({
  code,
  name,
  testId,
}: {
  code: string
  name?: string
  testId?: string
}) {
  const { t } = useTranslation()
  return (
    <Tag color={code === ABNORMAL ? 'red' : 'green'} data-testid={testId} data-value={code}>
      {verdictLabel(t, code, name)}
    </Tag>
  )
}

export function DeleteButton({ onClick, testId }: { onClick: () => void; testId: string }) {
  const { t } = useTranslation()
  return (
    <Button
      type="link"
      size="small"
      danger
      icon={<DeleteOutlined />}
      data-testid={testId}
      onClick={onClick}
    >
      {t('inspection.action.delete')}
    </Button>
  )
}

/** Downloads the list's workbook (the same filters as the table). */
export function ExportButton({ run, testId }: { run: () => Promise<Download>; testId: string }) {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const [busy, setBusy] = useState(false)
  return (
    <Button
      icon={<DownloadOutlined />}
      loading={busy}
      data-testid={testId}
      onClick={() => {
        setBusy(true)
        run()
          .then(saveDownload, () => void message.error(t('inspection.message.exportFailed')))
          .finally(() => setBusy(false))
      }}
    >
      {t('inspection.action.export')}
    </Button>
  )
}

/** Photo thumbnails (tap to enlarge). */
export function Thumbnails({
  photos,
  size = 72,
  testId,
}: {
  photos: readonly string[]
  size?: number
  testId?: string
}) {
  if (photos.length === 0) return null
  return (
    <Image.PreviewGroup>
      <Space wrap size={8} data-testid={testId}>
        {photos.map((src) => (
          <Image
            key={src}
            src={src}
            width={size}
            height={size}
            style={{ objectFit: 'cover', borderRadius: 6 }}
            data-testid="inspection-photo"
          />
        ))}
      </Space>
    </Image.PreviewGroup>
  )
}

/** A definition list that stacks on phones (label above value). */
export function Facts({ rows, testId }: { rows: [ReactNode, ReactNode][]; testId?: string }) {
  const phone = usePhone()
  return (
    <dl
      data-testid={testId}
      style={{
        display: 'grid',
        gridTemplateColumns: phone ? 'minmax(0, 1fr)' : 'max-content minmax(0, 1fr)',
        columnGap: 16,
        rowGap: phone ? 2 : 8,
        margin: 0,
      }}
    >
      {rows.map(([label, value], i) => (
        <div key={i} style={{ display: 'contents' }}>
          <dt
            style={{
              color: 'var(--ant-color-text-secondary, #888)',
              marginTop: phone && i > 0 ? 8 : 0,
            }}
          >
            {label}
          </dt>
          <dd style={{ margin: 0, overflowWrap: 'anywhere' }}>{value ?? '—'}</dd>
        </div>
      ))}
    </dl>
  )
}
