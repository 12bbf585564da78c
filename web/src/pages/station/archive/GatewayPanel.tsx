import { CopyOutlined, DownloadOutlined, KeyOutlined, ReloadOutlined } from '@ant-design/icons'
import { Alert, App, Button, Descriptions, Input, Modal, Space, Tag, Typography } from 'antd'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { saveDownload } from '../../../api/station/excel'
import {
  gatewayConfig,
  issueCredentials,
  type IssuedCredentials,
} from '../../../api/station/gateway'
import { gatewayQuery } from '../../../api/station/queries'
import { useSessionStore } from '../../../stores/session'
import { copyText } from './clipboard'
import DeviceQualityPanel from '../../../components/realtime/DeviceQuality'
import CommissionPanel from './CommissionPanel'

/**
 * The station's gateway: id and SN, whether MQTT credentials are issued, issuing / rotating them
 * (the password is shown once, in a dialog, and never again) and the generated edge config.
 */
export default function GatewayPanel({ stationId }: { stationId: string }) {
  const { t } = useTranslation()
  const { message, modal } = App.useApp()
  const allowed = useSessionStore((s) => s.permission.station_gateway === true)
  const queryClient = useQueryClient()
  // Failures are shown by the request client.
  const info = useQuery(gatewayQuery(stationId)).data ?? null
  const [issued, setIssued] = useState<IssuedCredentials | null>(null)
  const [busy, setBusy] = useState(false)

  const issue = async () => {
    setBusy(true)
    try {
      setIssued(await issueCredentials(stationId))
      void queryClient.invalidateQueries({ queryKey: gatewayQuery(stationId).queryKey })
    } catch {
      // shown by the request client (no gateway id yet, id taken...)
    } finally {
      setBusy(false)
    }
  }

  const askIssue = () => {
    if (!info?.credentialsIssued) {
      void issue()
      return
    }
    void modal.confirm({
      title: t('stationUi.gateway.rotateConfirm'),
      content: t('stationUi.gateway.rotateWarning'),
      okType: 'danger',
      okButtonProps: { 'data-testid': 'gateway-rotate-ok' },
      onOk: () => issue(),
    })
  }

  const download = async () => {
    try {
      saveDownload(await gatewayConfig(stationId))
    } catch {
      // shown by the request client
    }
  }

  const copy = async () => {
    if (issued && (await copyText(issued.password)))
      void message.success(t('stationUi.gateway.copied'))
  }

  return (
    <div data-testid="gateway-panel">
      <Descriptions bordered size="small" column={{ xs: 1, md: 2 }}>
        <Descriptions.Item label={t('stationUi.field.gatewayId')}>
          <span data-testid="gateway-id">{info?.gatewayId ?? '—'}</span>
        </Descriptions.Item>
        <Descriptions.Item label={t('stationUi.field.gatewaySn')}>
          {info?.gatewaySn ?? '—'}
        </Descriptions.Item>
        <Descriptions.Item label={t('stationUi.gateway.credentials')}>
          {info?.credentialsIssued ? (
            <Tag color="green" data-testid="gateway-status" data-issued="true">
              {t('stationUi.gateway.issued')}
            </Tag>
          ) : (
            <Tag data-testid="gateway-status" data-issued="false">
              {t('stationUi.gateway.notIssued')}
            </Tag>
          )}
        </Descriptions.Item>
        <Descriptions.Item label={t('stationUi.gateway.issuedAt')}>
          {info?.issuedAt ?? '—'}
        </Descriptions.Item>
        <Descriptions.Item label={t('stationUi.gateway.uplink')} span={2}>
          <span data-testid="gateway-uplink" data-encoding={info?.uplinkEncoding ?? ''}>
            {info?.uplinkEncoding ? (
              <Space size={8} wrap>
                <Tag color={info.uplinkEncoding === 'binary' ? 'blue' : 'default'}>
                  {info.uplinkEncoding === 'binary'
                    ? t('stationUi.gateway.uplinkBinary')
                    : t('stationUi.gateway.uplinkJson')}
                </Tag>
                {info.uplinkBytesPerSample != null && (
                  <span>
                    {t('stationUi.gateway.bytesPerSample', { bytes: info.uplinkBytesPerSample })}
                  </span>
                )}
              </Space>
            ) : (
              t('stationUi.gateway.uplinkNone')
            )}
          </span>
        </Descriptions.Item>
        <Descriptions.Item label={t('stationUi.gateway.passwordFile')} span={2}>
          <Typography.Text code>{info?.passwordFile ?? ''}</Typography.Text>
        </Descriptions.Item>
      </Descriptions>
      {!info?.gatewayId && info && (
        <Alert
          style={{ marginTop: 12 }}
          type="info"
          showIcon
          message={t('stationUi.gateway.needId')}
        />
      )}
      {allowed && (
        <Space style={{ marginTop: 16 }} wrap>
          <Button
            type="primary"
            icon={info?.credentialsIssued ? <ReloadOutlined /> : <KeyOutlined />}
            loading={busy}
            disabled={!info?.gatewayId}
            data-testid="gateway-issue"
            onClick={askIssue}
          >
            {info?.credentialsIssued ? t('stationUi.gateway.rotate') : t('stationUi.gateway.issue')}
          </Button>
          <Button
            icon={<DownloadOutlined />}
            disabled={!info?.gatewayId}
            data-testid="gateway-config"
            onClick={() => void download()}
          >
            {t('stationUi.gateway.config')}
          </Button>
        </Space>
      )}
      {info?.gatewayId && (
        <div style={{ marginTop: 12 }}>
          <DeviceQualityPanel stationId={stationId} />
        </div>
      )}
      {allowed && info?.gatewayId && <CommissionPanel stationId={stationId} />}
      <Modal
        open={issued !== null}
        title={t('stationUi.gateway.passwordTitle')}
        // Closing forgets the password: it exists nowhere else.
        onCancel={() => setIssued(null)}
        mask={{ closable: false }}
        keyboard={false}
        destroyOnHidden
        wrapClassName="gateway-password-dialog"
        footer={
          <Button
            type="primary"
            data-testid="gateway-password-close"
            onClick={() => setIssued(null)}
          >
            {t('stationUi.gateway.saved')}
          </Button>
        }
      >
        {issued && (
          <Space direction="vertical" style={{ width: '100%' }}>
            <Alert
              type="warning"
              showIcon
              message={issued.notice}
              data-testid="gateway-password-notice"
            />
            <Descriptions size="small" column={1} bordered>
              <Descriptions.Item label={t('stationUi.gateway.username')}>
                <Typography.Text code>{issued.username}</Typography.Text>
              </Descriptions.Item>
              <Descriptions.Item label={t('stationUi.gateway.password')}>
                <Space.Compact style={{ width: '100%' }}>
                  <Input readOnly value={issued.password} data-testid="gateway-password" />
                  <Button
                    icon={<CopyOutlined />}
                    data-testid="gateway-password-copy"
                    onClick={() => void copy()}
                  >
                    {t('stationUi.gateway.copy')}
                  </Button>
                </Space.Compact>
              </Descriptions.Item>
              <Descriptions.Item label={t('stationUi.gateway.passwordFile')}>
                <Typography.Text code>{issued.passwordFile}</Typography.Text>
              </Descriptions.Item>
            </Descriptions>
          </Space>
        )}
      </Modal>
    </div>
  )
}
